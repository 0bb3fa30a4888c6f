import { describe, expect, it } from 'vitest';
import type { SqliteAuditStoreOptions } from './audit.sqlite.js';
import { SqliteAuditStore } from './audit.sqlite.js';
import {
  SMALL_SHAPE,
  T0,
  direct,
  expectSameAsScan,
  insertRows,
  withFile,
} from './audit-text.sqlite.testkit.js';
import type { AuditEventInput } from './audit.types.js';

// Segments still open live in each store's memory: these are the ways that memory could miss a
// row, each of which must leave the index's answers the scan's.

const all = { from: new Date(T0 - 1e6), to: new Date(T0 + 1e7), limit: 5000 };
const open = (file: string, options: SqliteAuditStoreOptions = {}) =>
  new SqliteAuditStore(file, 'c', { textIndexShape: SMALL_SHAPE, textSearch: 'index', ...options });
const events = (count: number, note: string, at: number): AuditEventInput[] =>
  Array.from({ length: count }, (_, n) => ({
    event: 'e',
    code: 'C',
    time: new Date(T0 + at + n),
    note: `${note}-${n}.`,
    host: `h-${(at + n) % 50}`,
  }));
const uids = async (store: SqliteAuditStore, search: string) =>
  (await store.search({ ...all, search })).events.map((event) => event.uid).sort();

describe('sqlite text index, several writers', () => {
  it('sees what another process and plain SQL wrote, in open segments and complete ones', async () => {
    await withFile(async (file) => {
      const server = open(file);
      const cli = open(file);
      const scan = open(file, { textSearch: 'scan' });
      try {
        // Batches of growing size from both stores and by plain SQL, across segments of 512 ids,
        // with searches in between so each store's memory is built and caught up at other points.
        for (let round = 0; round < 24; round++) {
          const size = 17 + round * 13;
          if (round % 5 === 4)
            insertRows(
              file,
              events(size, `sql${round}`, round * 1000).map(({ time, ...fields }) => ({
                timeMs: (time as Date).getTime(),
                type: 'e',
                fields,
              })),
              round * 1000,
            );
          else await (round % 3 ? server : cli).emitBatch(events(size, `w${round}`, round * 1000));
          if (round % 4 === 1)
            await (round % 8 === 1 ? server : cli).search({ ...all, search: 'w1-' });
        }
        const stores = [server, cli, scan];
        for (const search of ['w3-1', 'sql9-1', 'sql19-', 'W23-', 'h-7"', 'note', 'nothing'])
          for (const order of ['desc', 'asc'] as const)
            await expectSameAsScan(stores, { ...all, limit: 300, search, order });
        expect(await uids(server, 'sql14-2')).toHaveLength(11);
      } finally {
        await Promise.all([server, cli, scan].map((store) => store.close()));
      }
    });
  });

  it('forgets a write that failed, whose ids another process then takes', async () => {
    await withFile(async (file) => {
      const server = open(file);
      const cli = open(file);
      try {
        await server.emitBatch(events(500, 'first', 0));
        // The next batch completes segment 0 (ids to 511) and fails as it writes it: its rows
        // were in the server's memory by then.
        direct(file, (db) =>
          db.exec(`CREATE TRIGGER refuse BEFORE UPDATE ON audit_text_index
            BEGIN SELECT RAISE(ABORT, 'refused'); END`),
        );
        await expect(server.emitBatch(events(20, 'rolled-back', 1000))).rejects.toThrow(/refused/);
        direct(file, (db) => db.exec('DROP TRIGGER refuse'));
        // The same ids, now holding other events.
        const taken = await cli.emitBatch(events(20, 'took-their-ids', 2000));
        expect(await uids(server, 'took-their-ids')).toEqual(taken.map((e) => e.uid).sort());
        expect(await uids(server, 'rolled-back')).toEqual([]);
        await server.emitBatch(events(20, 'after', 3000));
        expect(await uids(cli, 'after-1')).toHaveLength(11);
      } finally {
        await Promise.all([server.close(), cli.close()]);
      }
    });
  });

  it('finds rows changed by hand by what they now say, and where they now are in time', async () => {
    await withFile(async (file) => {
      const store = open(file);
      const scan = open(file, { textSearch: 'scan' });
      try {
        const written = await store.emitBatch(events(2000, 'plain', 0));
        // Rows in written segments (ids 1 and 700) and in the open one (1,990), altered.
        direct(file, (db) => {
          const alter = db.prepare(
            "UPDATE audit_events SET data = replace(data, 'plain', 'zebra'), time_ms = ? WHERE id = ?",
          );
          for (const id of [1, 700, 1990]) alter.run(T0 + 5_000_000 + id, id);
        });
        const zebras = [written[0]!, written[699]!, written[1989]!].map((e) => e.uid).sort();
        expect(await uids(store, 'ZEBRA-')).toEqual(zebras);
        expect(await uids(store, 'zebra-699.')).toEqual([written[699]!.uid]);
        for (const search of ['zebra', 'plain-69', 'plain-0.'])
          for (const order of ['desc', 'asc'] as const)
            await expectSameAsScan([store, scan], { ...all, limit: 100, search, order });
        const late = { from: new Date(T0 + 5_000_000), to: new Date(T0 + 5_001_000), limit: 10 };
        expect((await store.search({ ...late, search: 'zebra' })).events).toHaveLength(2);
      } finally {
        await Promise.all([store.close(), scan.close()]);
      }
    });
  });
});
