import { PostgresAuditStore } from './audit.postgres.js';
import { SqliteAuditStore } from './audit.sqlite.js';
import type { AuditStoreLog } from './audit-text.postgres.js';
import type { ReplayableAuditStore } from './audit.types.js';
import { ThreadedSqliteAuditStore } from './threaded-sqlite-audit-store.js';

export type AuditStoreConfig =
  { type: 'sqlite'; path: string } | { type: 'postgres'; url: string; schema?: string };

export interface OpenAuditStoreOptions {
  /** `log` hears when the text search must do without its index, or writes without their thread. */
  log?: AuditStoreLog;
  /**
   * SQLite: write on a thread of its own (the server, where sessions audit every statement; see
   * threaded-sqlite-audit-store.ts). Running from source, where the compiled writer is absent
   * (unit tests), writes stay on the calling thread, and `log` hears it.
   */
  writerThread?: boolean;
}

/** Opens the audit log; `clusterName` is stamped on events that do not name a cluster. */
export async function openAuditStore(
  config: AuditStoreConfig,
  clusterName: string,
  { log, writerThread = false }: OpenAuditStoreOptions = {},
): Promise<ReplayableAuditStore> {
  switch (config.type) {
    case 'sqlite':
      if (!writerThread) return new SqliteAuditStore(config.path, clusterName);
      if (ThreadedSqliteAuditStore.available())
        return new ThreadedSqliteAuditStore(config.path, clusterName);
      // Only from source (tests) or a broken install: said, so the second is not missed.
      log?.('warn', 'audit writes stay on the main thread: the compiled writer thread is missing');
      return new SqliteAuditStore(config.path, clusterName);
    case 'postgres':
      return PostgresAuditStore.open({ url: config.url, schema: config.schema, log }, clusterName);
    default:
      throw new Error(
        `unknown audit store type ${JSON.stringify((config as { type?: unknown }).type)}`,
      );
  }
}

export { SESSION_END_EVENTS, MAX_SEARCH_LIMIT } from './audit.common.js';
export { PostgresAuditStore } from './audit.postgres.js';
export type { PostgresAuditStoreOptions } from './audit.postgres.js';
export { SqliteAuditStore } from './audit.sqlite.js';
export { ThreadedSqliteAuditStore } from './threaded-sqlite-audit-store.js';
export { applyAuditRetention, startAuditRetention } from './retention.js';
export { AuditBadParameterError, InvalidStartKeyError } from './audit.types.js';
export type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  AuditStore,
  AuditStoredQuery,
  ReplayableAuditStore,
} from './audit.types.js';
