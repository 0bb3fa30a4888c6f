import path from 'node:path';
import type { AuditStorageConfig, StorageConfig } from './config.js';
import { parseDuration } from './duration.js';
import { defaultAuditSpoolMaxBytes, type FileConfig } from './file-schema.js';

/**
 * Where the audit log is kept, for how long, and where events wait while that storage is down
 * (the `audit` section of the config file).
 */
export function resolveAudit(audit: FileConfig['audit'], storage: StorageConfig, dataDir: string) {
  return {
    audit: resolveAuditStorage(audit, storage, dataDir),
    auditRetentionMs: parseRetention(audit?.retention ?? 0),
    auditSpool: {
      dir: path.resolve(dataDir, 'audit-spool'),
      maxBytes: audit?.spool_max_bytes ?? defaultAuditSpoolMaxBytes,
      onFailure: audit?.on_failure ?? ('refuse' as const),
    },
  };
}

/** The audit log lives beside the state unless configured apart; memory state audits to SQLite. */
function resolveAuditStorage(
  audit: FileConfig['audit'],
  storage: StorageConfig,
  dataDir: string,
): AuditStorageConfig {
  if (audit && 'type' in audit && audit.type === 'postgres') {
    return { type: 'postgres', url: audit.url, ...(audit.schema ? { schema: audit.schema } : {}) };
  }
  const typed = audit && 'type' in audit ? audit : undefined;
  if (!typed && storage.type === 'postgres') return storage;
  return { type: 'sqlite', path: path.resolve(dataDir, typed?.path ?? 'audit.db') };
}

/** Retention is counted in days ('365d'); other durations ('12h') work too, and 0 turns it off. */
function parseRetention(value: string | number): number {
  const days = typeof value === 'string' ? /^(\d+)d$/.exec(value.trim()) : null;
  return days ? Number(days[1]) * 86_400_000 : parseDuration(value, 'audit.retention');
}
