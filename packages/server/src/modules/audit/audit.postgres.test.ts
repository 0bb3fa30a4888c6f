import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSchemas, testPostgresUrl } from '../../backend/testing/postgres.testkit.js';
import { verifyAuditChain } from './audit-chain.js';
import { checkQuery, encodeStartKey } from './audit.common.js';
import { runAuditStoreConformance } from './audit.conformance.testkit.js';
import {
  PostgresAuditStore,
  estimatedRows,
  postgresRangeEstimateSql,
  postgresSearchSql,
  textIndexPays,
  textWalkMaxRows,
} from './audit.postgres.js';
import { installTrigramIndex } from './audit-text.postgres.js';
import type { AuditEvent, AuditSearchQuery, AuditSearchResult } from './audit.types.js';

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
    searchByScan: (query) => searchWith(`"${schema}".audit_events`, query, 'scan'),
    searchByIndex: (query) => searchWith(`"${schema}".audit_events`, query, 'index'),
    async cleanup() {
      await store.close();
      await schemas.drop(schema);
    },
  };
});

/**
 * The store's search query, made to go one way: the trigram index is read by bitmap scans
 * only, so without them it is the scan; with the other indexes dropped (in a transaction that
 * is rolled back) and no sequential scans, it is the trigram index for any text it can serve.
 */
async function searchWith(
  table: string,
  query: AuditSearchQuery,
  way: 'scan' | 'index',
): Promise<AuditSearchResult> {
  const checked = checkQuery(query);
  const { sql, params } = postgresSearchSql(table, checked);
  const { rows } = await schemas.inTransaction(async (client) => {
    await forceWay(client, table, way);
    return client.query<{ id: string; time_ms: string; data: AuditEvent }>(sql, params);
  });
  const page = rows.slice(0, checked.limit);
  const last = page.at(-1);
  return {
    events: page.map((row) => row.data),
    startKey:
      rows.length > checked.limit && last
        ? encodeStartKey({ timeMs: Number(last.time_ms), id: last.id })
        : '',
  };
}

async function forceWay(client: pg.PoolClient, table: string, way: 'scan' | 'index') {
  if (way === 'scan') {
    await client.query('SET LOCAL enable_bitmapscan = off');
    return;
  }
  const schema = table.slice(0, table.indexOf('.'));
  for (const index of ['time', 'type_time', 'user_time', 'sid_time'])
    await client.query(`DROP INDEX ${schema}.audit_events_${index}`);
  await client.query('SET LOCAL enable_seqscan = off');
}

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

  it('adds the trigram index to a log made before it, and text searches use it', async () => {
    const schema = schemas.newName();
    const table = `"${schema}".audit_events`;
    await schemas.query(`CREATE SCHEMA "${schema}"`);
    await schemas.query(`CREATE TABLE ${table} (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, time timestamptz NOT NULL,
      event_type text NOT NULL, code text NOT NULL, user_name text, session_id text, data json NOT NULL)`);
    await schemas.query(
      `INSERT INTO ${table} (time, event_type, code, data)
        SELECT t, 'e', 'C', json_build_object('event', 'e', 'code', 'C', 'time', t, 'uid', 'old-' || n, 'host', 'Host-' || (n % 40))
        FROM generate_series(1, 2000) AS n, LATERAL (SELECT timestamptz '2026-01-01Z' + n * interval '1 ms' AS t) AS at`,
    );
    // The index an earlier release made on the unfolded text: the fold replaces it.
    await schemas.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await schemas.query(
      `CREATE INDEX audit_events_text ON ${table} USING gin ((data::text) gin_trgm_ops)`,
    );
    const store = await PostgresAuditStore.open({ url: testPostgresUrl, schema }, 'c');
    try {
      const { rows } = await schemas.query<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%gin%'`,
        [schema],
      );
      expect(rows.map((row) => row.indexname)).toEqual(['audit_events_folded_text']);
      expect(rows[0]?.indexdef).toMatch(
        /USING gin \(replace\(replace\(.*\(data\)::text.*\) \S*gin_trgm_ops\)/,
      );
      const query = {
        from: new Date('2026-01-01T00:00:00Z'),
        to: new Date('2026-01-02T00:00:00Z'),
        limit: 100,
        search: 'HOST-17"',
      };
      const found = await store.search(query);
      expect(found.events.map((event) => event.uid)).toEqual(
        Array.from({ length: 50 }, (_, n) => `old-${1977 - 40 * n}`),
      );
      expect(await searchWith(table, query, 'index')).toEqual(found);
      expect(await searchWith(table, query, 'scan')).toEqual(found);
      const { sql, params } = postgresSearchSql(table, checkQuery(query));
      const plan = await schemas.inTransaction(async (client) => {
        await forceWay(client, table, 'index');
        const explained = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN ${sql}`.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1])),
        );
        return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
      });
      expect(plan).toMatch(/Bitmap Index Scan on audit_events_folded_text/);

      // A range expected to hold fewer rows than textWalkMaxRows is walked: the estimate reads
      // the statistics, and the text filter is worded so that the index cannot serve it, even
      // when forced to.
      await schemas.query(`ANALYZE ${table}`);
      const estimate = async (from: string, to: string) => {
        const range = checkQuery({ ...query, from: new Date(from), to: new Date(to) });
        const explained = postgresRangeEstimateSql(table, range);
        const answer = await schemas.query<{ 'QUERY PLAN': unknown }>(
          explained.sql,
          explained.params,
        );
        return estimatedRows(answer.rows);
      };
      const all = await estimate('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z');
      expect(all).toBeGreaterThan(1500);
      expect(all).toBeLessThan(textWalkMaxRows);
      expect(await estimate('2025-01-01T00:00:00Z', '2025-01-02T00:00:00Z')).toBeLessThan(10);
      const walked = postgresSearchSql(table, checkQuery(query), { textIndex: false });
      const walkPlan = await schemas.inTransaction(async (client) => {
        await forceWay(client, table, 'index');
        const explained = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN ${walked.sql}`.replace(/\$(\d+)/g, (_, n: string) =>
            literal(walked.params[Number(n) - 1]),
          ),
        );
        return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
      });
      expect(walkPlan).not.toMatch(/audit_events_folded_text/);
      const walkedRows = await schemas.query<{ data: AuditEvent }>(walked.sql, walked.params);
      expect(walkedRows.rows.slice(0, 100).map((row) => row.data.uid)).toEqual(
        found.events.map((event) => event.uid),
      );
    } finally {
      await store.close();
      await schemas.drop(schema);
    }
  });

  it('reads the index for a rare text and walks the range for a common one, by the estimates', async () => {
    const schema = schemas.newName();
    const table = `"${schema}".audit_events`;
    const store = await PostgresAuditStore.open({ url: testPostgresUrl, schema }, 'c');
    try {
      await schemas.query(
        `INSERT INTO ${table} (time, event_type, code, data)
          SELECT t, 'session.start', 'T2000I', json_build_object('event', 'session.start',
            'code', 'T2000I', 'time', t, 'uid', 'u-' || n, 'login', 'root',
            'server_hostname', 'node-' || (n % 200))
          FROM generate_series(1, 30000) AS n,
            LATERAL (SELECT timestamptz '2026-01-01Z' + n * interval '17 s' AS t) AS at`,
      );
      await schemas.query(`ANALYZE ${table}`);
      const range = { from: new Date('2026-01-01Z'), to: new Date('2026-02-01Z'), limit: 5000 };
      const estimate = async (search: string, folded: boolean) => {
        const checked = checkQuery({ ...range, search });
        const { sql, params } = postgresRangeEstimateSql(table, checked, { folded });
        return estimatedRows((await schemas.query<{ 'QUERY PLAN': unknown }>(sql, params)).rows);
      };
      const rangeRows = await estimate('root', false);
      expect(rangeRows).toBeGreaterThan(20_000);
      // `node-17"` holds `17`, in many timestamps: folded, its trigrams need `-17"` itself.
      const rare = await estimate('node-17"', true);
      const common = await estimate('root', true);
      expect(rare).toBeLessThan(1_000);
      expect(common).toBeGreaterThan(20_000);
      expect(textIndexPays(rangeRows, rare, range.limit)).toBe(true);
      expect(textIndexPays(rangeRows, common, range.limit)).toBe(false);
      // Walking for a common text reads the time index in page order and stops at the page's
      // end, rather than reading the whole range and sorting it.
      const walk = postgresSearchSql(table, checkQuery({ ...range, search: 'root' }), {
        textIndex: false,
      });
      const walkPlan = await schemas.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN ${walk.sql}`.replace(/\$(\d+)/g, (_, n: string) =>
          literal(walk.params[Number(n) - 1]),
        ),
      );
      const walkText = walkPlan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(walkText).toMatch(/Index Scan Backward using audit_events_time/);
      expect(walkText).not.toMatch(/Sort|Seq Scan/);
      for (const search of ['node-17"', 'root', 'NODE-17', '"root"']) {
        const query = { ...range, search };
        const found = await store.search(query);
        expect(found).toEqual(await searchWith(table, query, 'scan'));
        expect(found.events.length).toBeGreaterThan(0);
      }
    } finally {
      await store.close();
      await schemas.drop(schema);
    }
  });

  it('walks any range the planner expects to hold fewer rows than textWalkMaxRows', () => {
    expect(textIndexPays(textWalkMaxRows - 1, 1, 5000)).toBe(false);
    expect(textIndexPays(textWalkMaxRows, 1, 5000)).toBe(true);
    // At 1M events and a page of 5,000, the line is at 50,000 rows holding the text.
    expect(textIndexPays(1_000_000, 49_000, 5000)).toBe(true);
    expect(textIndexPays(1_000_000, 51_000, 5000)).toBe(false);
  });
});

describe('postgres audit text index without pg_trgm', () => {
  /** A pool whose one connection answers like a server without the extension. */
  const poolWithout = (failure: string | undefined) => {
    const sent: string[] = [];
    const client = {
      async query(sql: string) {
        sent.push(sql.trim().split(/\s+/).slice(0, 3).join(' '));
        if (failure && sql.startsWith('CREATE EXTENSION')) throw new Error(failure);
        return { rows: [], rowCount: 0 };
      },
      release() {},
      // inTransaction listens for a connection dying while it holds the client.
      on() {},
      removeListener() {},
    };
    return { pool: { connect: async () => client } as unknown as pg.Pool, sent };
  };

  it('keeps the scan and warns once when the extension cannot be created', async () => {
    const { pool, sent } = poolWithout('permission denied to create extension "pg_trgm"');
    const warnings: unknown[][] = [];
    const made = await installTrigramIndex(pool, '"s"', (...args) => warnings.push(args));
    expect(made).toBe(false);
    expect(warnings).toEqual([
      [
        'warn',
        'audit text search runs without an index: pg_trgm could not be created',
        { reason: 'permission denied to create extension "pg_trgm"' },
      ],
    ]);
    // The failed statement is undone alone, the transaction goes on and commits, no index.
    expect(sent).toContain('ROLLBACK TO SAVEPOINT');
    expect(sent.at(-1)).toBe('COMMIT');
    expect(sent.some((statement) => statement.startsWith('CREATE INDEX'))).toBe(false);
  });

  it('warns too when the extension is not there to create', async () => {
    const { pool } = poolWithout(undefined);
    const warnings: unknown[][] = [];
    expect(await installTrigramIndex(pool, '"s"', (...args) => warnings.push(args))).toBe(false);
    expect(warnings).toHaveLength(1);
  });
});
