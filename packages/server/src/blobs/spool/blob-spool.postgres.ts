import type pg from 'pg';
import { inTransaction, openMigratedPool, quoteSchema } from '../../backend/pg-helpers.js';
import type { BlobRange } from '../blob-store.js';
import {
  cutPiece,
  landedBefore,
  spoolPageSize,
  type BlobSpool,
  type SpoolEntry,
} from './blob-spool.js';

// `pieces` and `size` on the entry let one statement append a piece at the right place; the
// pieces' `at` (byte offset) lets range reads skip what they do not need.
const ddl = (s: string) => `
  CREATE TABLE IF NOT EXISTS ${s}.blob_spool (
    name text COLLATE "C" PRIMARY KEY,
    owner text NOT NULL,
    ended boolean NOT NULL DEFAULT false,
    pieces integer NOT NULL DEFAULT 0,
    size bigint NOT NULL DEFAULT 0,
    updated timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE IF NOT EXISTS ${s}.blob_spool_pieces (
    name text COLLATE "C" NOT NULL REFERENCES ${s}.blob_spool (name) ON DELETE CASCADE,
    seq integer NOT NULL,
    at bigint NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (name, seq)
  );
`;

interface EntryRow {
  name: string;
  owner: string;
  ended: boolean;
  size: string;
}

const toEntry = (row: EntryRow): SpoolEntry => ({ ...row, size: Number(row.size) });

/** The spool in the cluster's PostgreSQL: every proxy sees every entry. */
export class PostgresBlobSpool implements BlobSpool {
  private pool: pg.Pool | undefined;
  private readonly s: string;

  constructor(private readonly options: { url: string; schema?: string }) {
    this.s = quoteSchema(options.schema ?? 'public');
  }

  async init(): Promise<void> {
    this.pool ??= await openMigratedPool(
      this.options.url,
      this.options.schema ?? 'public',
      ddl(this.s),
    );
  }

  private get db(): pg.Pool {
    if (!this.pool) throw new Error('the blob spool is not initialised');
    return this.pool;
  }

  async begin(name: string, owner: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `INSERT INTO ${this.s}.blob_spool (name, owner) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
      [name, owner],
    );
    return rowCount === 1;
  }

  async append(name: string, owner: string, data: Buffer, at: number): Promise<boolean> {
    // One statement: the piece lands at the entry's end only while `owner` holds it open and
    // the end is where the writer thinks.
    const { rowCount } = await this.db.query(
      `WITH e AS (
         UPDATE ${this.s}.blob_spool SET pieces = pieces + 1, size = size + $3, updated = now()
         WHERE name = $1 AND owner = $2 AND NOT ended AND size = $5
         RETURNING pieces - 1 AS seq, size - $3 AS at)
       INSERT INTO ${this.s}.blob_spool_pieces (name, seq, at, data) SELECT $1, seq, at, $4 FROM e`,
      [name, owner, data.length, data, at],
    );
    if (rowCount === 1) return true;
    return landedBefore(await this.entry(name), owner, at + data.length);
  }

  async end(name: string, owner: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE ${this.s}.blob_spool SET ended = true, updated = now() WHERE name = $1 AND owner = $2`,
      [name, owner],
    );
    return rowCount === 1;
  }

  async replace(name: string, owner: string, data: Buffer): Promise<void> {
    await inTransaction(this.db, async (client) => {
      await client.query(`DELETE FROM ${this.s}.blob_spool WHERE name = $1`, [name]);
      await client.query(
        `INSERT INTO ${this.s}.blob_spool (name, owner, ended, pieces, size) VALUES ($1, $2, true, 1, $3)`,
        [name, owner, data.length],
      );
      await client.query(
        `INSERT INTO ${this.s}.blob_spool_pieces (name, seq, at, data) VALUES ($1, 0, 0, $2)`,
        [name, data],
      );
    });
  }

  async entry(name: string): Promise<SpoolEntry | undefined> {
    const { rows } = await this.db.query<EntryRow>(
      `SELECT name, owner, ended, size FROM ${this.s}.blob_spool WHERE name = $1`,
      [name],
    );
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  async *pieces(name: string, range: BlobRange = {}): AsyncIterable<Buffer> {
    const start = range.start ?? 0;
    const end = range.end ?? Number.MAX_SAFE_INTEGER;
    let seq = -1;
    for (;;) {
      // Pieces that end after `start` and begin before `end`, a page at a time.
      const { rows } = await this.db.query<{ seq: number; at: string; data: Buffer }>(
        `SELECT seq, at, data FROM ${this.s}.blob_spool_pieces
         WHERE name = $1 AND seq > $2 AND at + length(data) > $3 AND at < $4
         ORDER BY seq LIMIT ${spoolPageSize}`,
        [name, seq, start, end],
      );
      for (const row of rows) {
        const piece = cutPiece(row.data, Number(row.at), start, end);
        if (piece) yield piece;
        seq = row.seq;
      }
      if (rows.length < spoolPageSize) return;
    }
  }

  async list(prefix = ''): Promise<SpoolEntry[]> {
    const { rows } = await this.db.query<EntryRow>(
      `SELECT name, owner, ended, size FROM ${this.s}.blob_spool
       WHERE starts_with(name, $1) ORDER BY name`,
      [prefix],
    );
    return rows.map(toEntry);
  }

  async claimAll(from: string, to: string): Promise<SpoolEntry[]> {
    const { rows } = await this.db.query<EntryRow>(
      `UPDATE ${this.s}.blob_spool SET owner = $2, updated = now() WHERE owner = $1
       RETURNING name, $1::text AS owner, ended, size`,
      [from, to],
    );
    return rows.map(toEntry).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async remove(name: string, owner?: string): Promise<void> {
    await this.db.query(
      `DELETE FROM ${this.s}.blob_spool WHERE name = $1 AND ($2::text IS NULL OR owner = $2)`,
      [name, owner ?? null],
    );
  }

  async close(): Promise<void> {
    await this.pool?.end();
    this.pool = undefined;
  }
}
