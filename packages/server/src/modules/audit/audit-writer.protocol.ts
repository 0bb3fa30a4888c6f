import type { AuditRow } from './audit.common.js';
import type { SqliteAuditStoreOptions } from './audit.sqlite.js';

/** What the writer thread is started with: the file and how the store opens it. */
export interface WriterData {
  path: string;
  clusterName: string;
  options: SqliteAuditStoreOptions;
}

/** One request to the writer thread; `id` pairs it with its reply. */
export type WriterRequest = { id: number } & (
  | { op: 'append'; rows: AuditRow[] }
  | { op: 'remove'; cutoffMs: number; batchSize: number }
  | { op: 'close' }
);

/** An error as it crosses the thread boundary: SQLite's `code` (SQLITE_BUSY…) must survive. */
export interface WriterError {
  name: string;
  message: string;
  code?: string;
}

export type WriterReply =
  { id: number; ok: true; removed?: number } | { id: number; ok: false; error: WriterError };
