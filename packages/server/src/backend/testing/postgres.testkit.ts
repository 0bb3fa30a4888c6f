import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The test database; override with POSTERN_TEST_PG_URL. */
export const testPostgresUrl =
  process.env.POSTERN_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Gives each test its own schema, so test files run in parallel and repeated runs never see
 * each other's rows. Call `dropAll` in afterAll: it also drops schemas a failed test left.
 * There is no skip when PostgreSQL is down: `connect` fails the suite with a clear message.
 */
export class TestSchemas {
  private readonly pool = new pg.Pool({ connectionString: testPostgresUrl, max: 2 });
  private readonly created = new Set<string>();

  async connect(): Promise<void> {
    try {
      await this.pool.query('SELECT 1');
    } catch (error) {
      throw new Error(
        `PostgreSQL tests need a server at ${testPostgresUrl}: ${(error as Error).message}`,
      );
    }
  }

  /** A fresh name; the store under test creates the schema itself. */
  newName(): string {
    const name = `postern_test_${randomBytes(6).toString('hex')}`;
    this.created.add(name);
    return name;
  }

  async drop(name: string): Promise<void> {
    await this.pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    this.created.delete(name);
  }

  async query<R extends pg.QueryResultRow>(
    sql: string,
    params: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(sql, params);
  }

  /** For session settings (SET LOCAL) that must hold across several statements. */
  async inTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      return await fn(client);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  async dropAll(): Promise<void> {
    for (const name of [...this.created]) await this.drop(name);
    await this.pool.end();
  }
}
