import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { BlobRange } from '../blob-store.js';
import { cutPiece, spoolPageSize, type BlobSpool, type SpoolEntry } from './blob-spool.js';

const schema = `
  CREATE TABLE IF NOT EXISTS blob_spool (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    ended INTEGER NOT NULL DEFAULT 0,
    pieces INTEGER NOT NULL DEFAULT 0,
    size INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE IF NOT EXISTS blob_spool_pieces (
    name TEXT NOT NULL,
    seq INTEGER NOT NULL,
    at INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (name, seq)
  );
`;

interface EntryRow {
  name: string;
  owner: string;
  ended: number;
  size: number;
}

const toEntry = (row: EntryRow): SpoolEntry => ({ ...row, ended: row.ended === 1 });

/**
 * The spool in a SQLite file of the data dir, for one proxy with its recordings in a bucket and
 * its state in SQLite: a session's recording still survives the process being killed.
 */
export class SqliteBlobSpool implements BlobSpool {
  private db: Database.Database | undefined;

  constructor(private readonly path: string) {}

  async init(): Promise<void> {
    if (this.db) return;
    mkdirSync(dirname(this.path), { recursive: true });
    const db = new Database(this.path);
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.exec(schema);
    this.db = db;
  }

  private get sql(): Database.Database {
    if (!this.db) throw new Error('the blob spool is not initialised');
    return this.db;
  }

  async begin(name: string, owner: string): Promise<boolean> {
    const { changes } = this.sql
      .prepare('INSERT INTO blob_spool (name, owner) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
      .run(name, owner);
    return changes === 1;
  }

  async append(name: string, owner: string, data: Buffer, at: number): Promise<boolean> {
    return this.sql.transaction(() => {
      const entry = this.sql
        .prepare('SELECT pieces, size FROM blob_spool WHERE name = ? AND owner = ? AND ended = 0')
        .get(name, owner) as { pieces: number; size: number } | undefined;
      if (!entry) return false;
      if (entry.size !== at) return entry.size === at + data.length; // landed before, or lost
      this.sql
        .prepare('INSERT INTO blob_spool_pieces (name, seq, at, data) VALUES (?, ?, ?, ?)')
        .run(name, entry.pieces, entry.size, data);
      this.sql
        .prepare('UPDATE blob_spool SET pieces = pieces + 1, size = size + ? WHERE name = ?')
        .run(data.length, name);
      return true;
    })();
  }

  async end(name: string, owner: string): Promise<boolean> {
    const { changes } = this.sql
      .prepare('UPDATE blob_spool SET ended = 1 WHERE name = ? AND owner = ?')
      .run(name, owner);
    return changes === 1;
  }

  async replace(name: string, owner: string, data: Buffer): Promise<void> {
    this.sql.transaction(() => {
      this.deleteEntry(name);
      this.sql
        .prepare('INSERT INTO blob_spool (name, owner, ended, pieces, size) VALUES (?, ?, 1, 1, ?)')
        .run(name, owner, data.length);
      this.sql
        .prepare('INSERT INTO blob_spool_pieces (name, seq, at, data) VALUES (?, 0, 0, ?)')
        .run(name, data);
    })();
  }

  async entry(name: string): Promise<SpoolEntry | undefined> {
    const row = this.sql
      .prepare('SELECT name, owner, ended, size FROM blob_spool WHERE name = ?')
      .get(name) as EntryRow | undefined;
    return row ? toEntry(row) : undefined;
  }

  async *pieces(name: string, range: BlobRange = {}): AsyncIterable<Buffer> {
    const start = range.start ?? 0;
    const end = range.end ?? Number.MAX_SAFE_INTEGER;
    const page = this.sql.prepare(
      `SELECT seq, at, data FROM blob_spool_pieces
       WHERE name = ? AND seq > ? AND at + length(data) > ? AND at < ?
       ORDER BY seq LIMIT ${spoolPageSize}`,
    );
    let seq = -1;
    for (;;) {
      const rows = page.all(name, seq, start, end) as { seq: number; at: number; data: Buffer }[];
      for (const row of rows) {
        const piece = cutPiece(row.data, row.at, start, end);
        if (piece) yield piece;
        seq = row.seq;
      }
      if (rows.length < spoolPageSize) return;
    }
  }

  async list(prefix = ''): Promise<SpoolEntry[]> {
    const rows = this.sql
      .prepare('SELECT name, owner, ended, size FROM blob_spool ORDER BY name')
      .all() as EntryRow[];
    return rows.filter((row) => row.name.startsWith(prefix)).map(toEntry);
  }

  async claimAll(from: string, to: string): Promise<SpoolEntry[]> {
    return this.sql.transaction(() => {
      const rows = this.sql
        .prepare('SELECT name, owner, ended, size FROM blob_spool WHERE owner = ? ORDER BY name')
        .all(from) as EntryRow[];
      this.sql.prepare('UPDATE blob_spool SET owner = ? WHERE owner = ?').run(to, from);
      return rows.map(toEntry);
    })();
  }

  async remove(name: string, owner?: string): Promise<void> {
    this.sql.transaction(() => {
      const entry = this.sql.prepare('SELECT owner FROM blob_spool WHERE name = ?').get(name) as
        { owner: string } | undefined;
      if (entry && (owner === undefined || entry.owner === owner)) this.deleteEntry(name);
    })();
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }

  private deleteEntry(name: string): void {
    this.sql.prepare('DELETE FROM blob_spool_pieces WHERE name = ?').run(name);
    this.sql.prepare('DELETE FROM blob_spool WHERE name = ?').run(name);
  }
}
