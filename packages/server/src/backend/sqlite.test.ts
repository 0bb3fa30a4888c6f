import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBackendConformance } from './backend.conformance.testkit.js';
import { SqliteBackend } from './sqlite.js';
import { expectSameEventsAcrossProcesses } from './testing/cross-process.testkit.js';
import { EventReader } from './testing/event-reader.testkit.js';
import { WatchFailedError } from './types.js';

const tempDir = () => mkdtemp(path.join(tmpdir(), 'postern-sqlite-'));

runBackendConformance(
  'sqlite',
  async ({ sweepIntervalMs }) => {
    const dir = await tempDir();
    const file = path.join(dir, 'postern.db');
    // A short poll interval stands in for a CLI process writing while the server runs.
    const open = () => new SqliteBackend(file, { sweepIntervalMs, pollIntervalMs: 50 });
    const backend = open();
    return {
      backend,
      openPeer: async () => open(),
      cleanup: async () => {
        await backend.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  { sharedStorage: true },
);

describe('sqlite backend across processes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('shows this process the writes of another process on the same file, in one order', async () => {
    const file = path.join(dir, 'postern.db');
    const backend = new SqliteBackend(file, { pollIntervalMs: 50 });
    try {
      await expectSameEventsAcrossProcesses({ type: 'sqlite', path: file }, backend);
    } finally {
      await backend.close();
    }
  });

  it('fails a watcher that fell behind a trimmed event log instead of skipping events', async () => {
    const file = path.join(dir, 'postern.db');
    // The server polls rarely; a CLI process writes and trims its log right away.
    const server = new SqliteBackend(file, { pollIntervalMs: 60_000 });
    const cli = new SqliteBackend(file, {
      sweepIntervalMs: 20,
      eventRetentionMs: 0,
      eventRetentionCount: 1,
    });
    try {
      const watcher = server.watch(['/']);
      await watcher.ready;
      for (let i = 0; i < 3; i++) await cli.create({ key: `/users/u${i}`, value: '{}' });
      await sleep(150);
      await server.create({ key: '/users/local', value: '{}' }); // makes the server read the log
      await expect(new EventReader(watcher).peek(1000)).rejects.toBeInstanceOf(WatchFailedError);

      const again = server.watch(['/']);
      await again.ready;
      const fresh = await cli.create({ key: '/users/after', value: '{}' });
      await server.create({ key: '/users/local2', value: '{}' });
      expect((await new EventReader(again).take(1))[0]).toEqual({ type: 'put', item: fresh });
    } finally {
      await cli.close();
      await server.close();
    }
  });
});
