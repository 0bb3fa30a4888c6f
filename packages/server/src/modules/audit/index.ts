import { PostgresAuditStore } from './audit.postgres.js';
import { SqliteAuditStore } from './audit.sqlite.js';
import type { AuditStoreLog } from './audit-text.postgres.js';
import type { AuditStore } from './audit.types.js';

export type AuditStoreConfig =
  { type: 'sqlite'; path: string } | { type: 'postgres'; url: string; schema?: string };

/**
 * Opens the audit log; `clusterName` is stamped on events that do not name a cluster, and `log`
 * hears when the text search must do without its index.
 */
export async function openAuditStore(
  config: AuditStoreConfig,
  clusterName: string,
  log?: AuditStoreLog,
): Promise<AuditStore> {
  switch (config.type) {
    case 'sqlite':
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
export { applyAuditRetention, startAuditRetention } from './retention.js';
export { AuditBadParameterError, InvalidStartKeyError } from './audit.types.js';
export type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  AuditStore,
} from './audit.types.js';
