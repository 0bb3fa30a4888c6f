import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSchemas, testPostgresUrl } from '../../backend/testing/postgres.testkit.js';
import { verifyAuditChain } from './audit-chain.js';
import { checkQuery } from './audit.common.js';
import { runAuditStoreConformance } from './audit.conformance.testkit.js';
import { PostgresAuditStore, postgresSearchSql } from './audit.postgres.js';

// Every test gets a schema of its own, dropped afterwards, so runs never see each other's events.
const schemas = new TestSchemas();
beforeAll(() => schemas.connect());
afterAll(() => schemas.dropAll());

runAuditStoreConformance('postgres', async (clusterName) => {
  const schema = schemas.newName();
  const store = await PostgresAuditStore.open({ url: testPostgresUrl, schema }, clusterName);
  const table = `"${schema}".audit_events`;
  const sql = (text: string, params: unknown[]) => schemas.query(text, params);
  return {
    store,
    openSecond: () => PostgresAuditStore.open({ url: testPostgresUrl, schema }, clusterName),
    async alterEvent(uid, text, replacement) {
      await sql(
        `UPDATE ${table} SET data = replace(data::text, $1, $2)::json WHERE data::text LIKE $3`,
        [text, replacement, `%${uid}%`],
      );
    },
    async deleteEvent(uid) {
      await sql(`DELETE FROM ${table} WHERE data::text LIKE $1`, [`%${uid}%`]);
    },
    async explainSearch(query) {
      const { sql, params } = postgresSearchSql(`"${schema}".audit_events`, checkQuery(query));
      // Tiny test tables make a sequential scan cheapest, so rule scans that cannot deliver
      // rows in order out: what is left shows whether an index serves the order by itself.
      const { rows } = await schemas.inTransaction(async (client) => {
        await client.query('SET LOCAL enable_seqscan = off');
        await client.query('SET LOCAL enable_bitmapscan = off');
        return client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN ${sql}`.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1])),
        );
      });
      const text = rows.map((row) => row['QUERY PLAN']).join('\n');
      return {
        text,
        indexes: [...text.matchAll(/Index (?:Only )?Scan (?:Backward )?using (\w+)/g)].map(
          (match) => match[1] as string,
        ),
        sorts: /\bSort\b/.test(text),
      };
    },
    async cleanup() {
      await store.close();
      await schemas.drop(schema);
    },
  };
});

/** EXPLAIN cannot take bind parameters, so the test inlines them as typed literals. */
function literal(value: unknown): string {
  if (value instanceof Date) return `'${value.toISOString()}'::timestamptz`;
  if (typeof value === 'number') return String(value);
  return `'${String(value).replaceAll("'", "''")}'`;
}

describe('postgres audit store', () => {
  it('lets several servers create the same schema at once', async () => {
    const schema = schemas.newName();
    const stores = await Promise.all(
      Array.from({ length: 4 }, () =>
        PostgresAuditStore.open({ url: testPostgresUrl, schema }, 'c'),
      ),
    );
    try {
      const emitted = await stores[0]?.emit({ event: 'e', code: 'C' });
      const found = await stores[3]?.search({
        from: new Date(0),
        to: new Date(Date.now() + 1000),
        limit: 5,
      });
      expect(found?.events).toEqual([emitted]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await schemas.drop(schema);
    }
  });

  it('adds the chain to a log made before it: old rows are unchained, new ones verify', async () => {
    const schema = schemas.newName();
    await schemas.query(`CREATE SCHEMA "${schema}"`);
    await schemas.query(`CREATE TABLE "${schema}".audit_events (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, time timestamptz NOT NULL,
      event_type text NOT NULL, code text NOT NULL, user_name text, session_id text, data json NOT NULL)`);
    const time = '2026-01-01T00:00:00.000Z';
    await schemas.query(
      `INSERT INTO "${schema}".audit_events (time, event_type, code, data) VALUES ($1, 'e', 'C', $2)`,
      [time, JSON.stringify({ event: 'e', code: 'C', time, uid: 'old' })],
    );
    const store = await PostgresAuditStore.open({ url: testPostgresUrl, schema }, 'c');
    try {
      const first = await store.emit({ event: 'e', code: 'C' });
      expect(await verifyAuditChain(store)).toEqual({
        verified: 1,
        unchained: 1,
        unchainedBefore: first.time,
      });
    } finally {
      await store.close();
      await schemas.drop(schema);
    }
  });
});
