import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteAuditStore } from './audit.sqlite.js';
import { emitAuditInBackground } from './emit.js';

describe('emitAuditInBackground', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes the event, and a store that refuses becomes a warning, not an unhandled rejection', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-emit-'));
    const store = new SqliteAuditStore(path.join(dir, 'audit.db'), 'test-cluster');
    const warnings: string[] = [];
    vi.spyOn(process, 'emitWarning').mockImplementation((warning) => {
      warnings.push(String(warning));
    });
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      emitAuditInBackground(store, 'T2000I', { user: 'alice', sid: 's-1' });
      await vi.waitFor(async () => {
        const { events } = await store.search({
          from: new Date(0),
          to: new Date(Date.now() + 60_000),
          limit: 10,
        });
        expect(events.map((event) => event.sid)).toEqual(['s-1']);
      });
      // The process is stopping: the store is closed under a session still ending.
      await store.close();
      emitAuditInBackground(store, 'T2004I', { user: 'alice', sid: 's-1' });
      await vi.waitFor(() => expect(warnings).toHaveLength(1));
      expect(warnings[0]).toMatch(/^audit event T2004I was not written: /);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
