import { MemoryBackend } from './memory.js';
import type { Backend } from './types.js';

export type BackendConfig =
  | { type: 'memory' }
  | { type: 'sqlite'; path: string }
  | { type: 'postgres'; url: string; schema?: string };

/**
 * The drivers are loaded here, for the storage in use: most modules import this file for the
 * errors and types, and loading better-sqlite3 and pg with it slowed every CLI command's start.
 */
export async function openBackend(config: BackendConfig): Promise<Backend> {
  switch (config.type) {
    case 'memory':
      return new MemoryBackend();
    case 'sqlite': {
      const { SqliteBackend } = await import('./sqlite.js');
      return new SqliteBackend(config.path);
    }
    case 'postgres': {
      const { PostgresBackend } = await import('./postgres.js');
      return PostgresBackend.open({ url: config.url, schema: config.schema });
    }
    default:
      throw new Error(
        `unknown backend type ${JSON.stringify((config as { type?: unknown }).type)}`,
      );
  }
}

export { InvalidKeyError, isUuid } from './keys.js';
export { readWithRevision, RevisionedStore } from './revisioned-store.js';
export type { NamedResource, RevisionedKind } from './revisioned-store.js';
export { MemoryBackend } from './memory.js';
export { retryOnConflict } from './retry-on-conflict.js';
export type { MemoryBackendOptions } from './memory.js';
export type { SqliteBackend } from './sqlite.js';
export type { SqliteBackendOptions } from './sqlite.js';
export type { PostgresBackend } from './postgres.js';
export type { PostgresBackendOptions } from './postgres.js';
export {
  AlreadyExistsError,
  BackendError,
  CompareFailedError,
  deleteIfPresent,
  NotFoundError,
  WatchFailedError,
} from './types.js';
export type {
  Backend,
  BackendErrorCode,
  Item,
  ListOptions,
  ListResult,
  PutItem,
  WatchEvent,
  Watcher,
} from './types.js';
