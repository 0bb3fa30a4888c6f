import { MemoryBackend } from './memory.js';
import { PostgresBackend } from './postgres.js';
import { SqliteBackend } from './sqlite.js';
import type { Backend } from './types.js';

export type BackendConfig =
  | { type: 'memory' }
  | { type: 'sqlite'; path: string }
  | { type: 'postgres'; url: string; schema?: string };

export async function openBackend(config: BackendConfig): Promise<Backend> {
  switch (config.type) {
    case 'memory':
      return new MemoryBackend();
    case 'sqlite':
      return new SqliteBackend(config.path);
    case 'postgres':
      return PostgresBackend.open({ url: config.url, schema: config.schema });
    default:
      throw new Error(
        `unknown backend type ${JSON.stringify((config as { type?: unknown }).type)}`,
      );
  }
}

export { InvalidKeyError } from './keys.js';
export { readWithRevision, RevisionedStore } from './revisioned-store.js';
export type { NamedResource, RevisionedKind } from './revisioned-store.js';
export { MemoryBackend } from './memory.js';
export type { MemoryBackendOptions } from './memory.js';
export { SqliteBackend } from './sqlite.js';
export type { SqliteBackendOptions } from './sqlite.js';
export { PostgresBackend } from './postgres.js';
export type { PostgresBackendOptions } from './postgres.js';
export {
  AlreadyExistsError,
  BackendError,
  CompareFailedError,
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
