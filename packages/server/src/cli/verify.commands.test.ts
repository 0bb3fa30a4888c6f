import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testPostgresUrl } from '../backend/testing/postgres.testkit.js';
import { buildCli } from '../main.js';
import { CHAIN_GENESIS, chainHash, type AuditChainSource } from '../modules/audit/audit-chain.js';
import type { AuditEvent } from '../modules/audit/index.js';
import {
  flipByteInChunk,
  recordMinute,
} from '../modules/recordings/recording-integrity.testkit.js';
import { DirRecordingStore } from '../modules/recordings/recording-store.js';
import { openAdminContext, type AdminContext } from './admin-context.js';
import { cliDataDir } from './cli-harness.testkit.js';
import { verifyAudit, verifyRecordings } from './verify.commands.js';

const { state, run, failure, file } = cliDataDir();

/** Runs `postern verify ...` as main does; returns what it printed and the exit code it set. */
async function cli(...args: string[]) {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const before = process.exitCode;
  process.exitCode = undefined; // whatever a test before this one left
  try {
    await buildCli().parseAsync(['node', 'postern', 'verify', ...args, '--data-dir', state.dir]);
    return { lines: log.mock.calls.map((call) => String(call[0])), exitCode: process.exitCode };
  } finally {
    log.mockRestore();
    process.exitCode = before;
  }
}

async function emitTen(ctx: AdminContext, tag: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  for (let n = 0; n < 10; n++)
    events.push(await ctx.audit.emit({ event: 'test.event', code: 'T0000I', user: `${tag}${n}` }));
  return events;
}

describe('postern verify audit (SQLite)', () => {
  const auditDb = () => new Database(path.join(state.dir, 'audit.db'));
  afterEach(() => {
    // Each test starts from a fresh, intact log.
    const db = auditDb();
    db.exec('DELETE FROM audit_events');
    db.exec(`UPDATE audit_chain SET head = anchor`);
    db.close();
  });

  it('prints OK with the count for an untouched log', async () => {
    await run((ctx) => emitTen(ctx, 'u'));
    const lines = await run((ctx, print) => verifyAudit(ctx, print));
    expect(lines).toEqual([expect.stringMatching(/^Audit log OK: \d+ events verified\.$/)]);
    expect(await cli('audit')).toMatchObject({ exitCode: undefined });
  });

  it('names a row altered by a direct SQL UPDATE, and exits 1', async () => {
    let events: AuditEvent[] = [];
    await run(async (ctx) => (events = await emitTen(ctx, 'a')));
    const db = auditDb();
    const { id } = db.prepare('SELECT id FROM audit_events WHERE user_name = ?').get('a3') as {
      id: number;
    };
    db.prepare(
      `UPDATE audit_events SET data = replace(data, '"a3"', '"mallory"') WHERE id = ?`,
    ).run(id);
    db.close();
    const { lines, exitCode } = await cli('audit');
    expect(exitCode).toBe(1);
    expect(lines).toEqual([
      expect.stringContaining(
        `TAMPERED at position ${id} (event ${events[3]!.uid}, ${events[3]!.time}): the event was altered`,
      ),
    ]);
  });

  it('names the place of a row deleted from the middle', async () => {
    let events: AuditEvent[] = [];
    await run(async (ctx) => (events = await emitTen(ctx, 'd')));
    const db = auditDb();
    const ids = (
      db.prepare('SELECT id FROM audit_events ORDER BY id').all() as { id: number }[]
    ).map((row) => row.id);
    db.prepare('DELETE FROM audit_events WHERE id = ?').run(ids[5]);
    db.close();
    const { lines, exitCode } = await cli('audit');
    expect(exitCode).toBe(1);
    expect(lines[0]).toContain(`TAMPERED at position ${ids[6]} (event ${events[6]!.uid}`);
    expect(lines[0]).toContain(`between position ${ids[4]} and this row`);
  });
});

describe('postern verify audit on a log older than the chain', () => {
  it('reports the old rows as unchained before the first chained one, not as tampering', async () => {
    const row = (id: string, hash: string | null, time: string) => ({
      id,
      timeMs: Date.parse(time),
      eventType: 'e',
      code: 'C',
      user: null,
      sid: null,
      event: { event: 'e', code: 'C', time, uid: `u${id}` },
      prevHash: hash === null ? null : CHAIN_GENESIS,
      hash,
    });
    const chained = row('3', '', '2026-11-02T00:00:00.000Z');
    chained.hash = chainHash(CHAIN_GENESIS, chained.event);
    const rows = [
      row('1', null, '2026-11-01T00:00:00.000Z'),
      row('2', null, '2026-11-01T00:00:01.000Z'),
      chained,
    ];
    const source: AuditChainSource = {
      chainState: async () => ({ head: chained.hash!, anchor: CHAIN_GENESIS, chainedFrom: '3' }),
      chainRows: async (after) => (after === undefined ? rows : []),
    };
    const out: string[] = [];
    const ctx = { audit: source } as unknown as AdminContext;
    expect(await verifyAudit(ctx, (line) => out.push(line))).toBe(true);
    expect(out).toEqual([
      'Audit log OK: 1 event verified. 2 older events are unchained before 2026-11-02T00:00:00.000Z (written before the chain existed).',
    ]);
  });
});

describe('postern verify audit (PostgreSQL)', () => {
  it('names a row altered by a direct SQL UPDATE', async () => {
    const schema = `verify_${randomBytes(6).toString('hex')}`;
    const config = await file(
      `pg-${schema}.yaml`,
      `data_dir: ${state.dir}\naudit: {type: postgres, url: "${testPostgresUrl}", schema: ${schema}}\n`,
    );
    const client = new pg.Client({ connectionString: testPostgresUrl });
    await client.connect();
    try {
      const ctx = await openAdminContext({ config });
      try {
        const events = await emitTen(ctx, 'p');
        const out: string[] = [];
        expect(await verifyAudit(ctx, (line) => out.push(line))).toBe(true);
        expect(out).toEqual(['Audit log OK: 10 events verified.']);
        await client.query(
          `UPDATE "${schema}".audit_events SET data = replace(data::text, '"p7"', '"eve"')::json
            WHERE user_name = 'p7'`,
        );
        out.length = 0;
        expect(await verifyAudit(ctx, (line) => out.push(line))).toBe(false);
        expect(out[0]).toContain(
          `(event ${events[7]!.uid}, ${events[7]!.time}): the event was altered`,
        );
      } finally {
        await ctx.close();
      }
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });
});

describe('postern verify recordings', () => {
  const sid = '4e0c2a6c-1111-4222-8333-944455556666';
  const other = '4e0c2a6c-2222-4222-8333-944455556666';

  it('prints OK for untouched recordings, names the chunk with a flipped byte, exits 1', async () => {
    const store = new DirRecordingStore(path.join(state.dir, 'recordings'));
    await store.init();
    await recordMinute(store, sid);
    await recordMinute(store, other);
    expect(await cli('recordings')).toEqual({
      lines: ['Recordings OK: 2 verified.'],
      exitCode: undefined,
    });
    const record = await flipByteInChunk(store, sid, 3);
    const all = await cli('recordings');
    expect(all.exitCode).toBe(1);
    expect(all.lines).toEqual([
      `Recording ${sid} DAMAGED: chunk 3 at byte ${record.gz} of ${sid}.cast.gz: its bytes were altered, or a chunk before it removed.`,
      'Recordings DAMAGED: 1 of 2.',
    ]);
    expect(await cli('recordings', other)).toEqual({
      lines: ['Recordings OK: 1 verified.'],
      exitCode: undefined,
    });
    expect(await failure((ctx, print) => verifyRecordings(ctx, 'no-such-session', print))).toMatch(
      /no sealed recording of session no-such-session/,
    );
  });
});
