import type { Duplex } from 'node:stream';
import {
  databaseNamePattern,
  databaseTypeTitles,
  type DatabaseResource,
  type DatabaseSortField,
} from '@postern/contracts';
import type { Item } from '../../backend/index.js';
import type { CatalogRecord } from '../../modules/inventory/resource-catalog.js';
import type { ResourceKind } from '../../modules/inventory/resource-kind.js';

/** Opens a plain byte stream to the database: its own address, or through an agent's tunnel. */
export type DialDatabase = (db: DatabaseRecord) => Promise<Duplex>;

/** A database as stored under `/databases/<name>` (modules/inventory/resource-catalog.ts). */
export type DatabaseRecord = CatalogRecord<DatabaseResource>;

export const databasesPrefix = '/databases/';

/** The type title the Databases page shows (spec §9). */
export const databaseTypeTitle = (db: DatabaseResource) =>
  databaseTypeTitles[db.spec.protocol] ?? db.spec.protocol;

/** The inventory's view of databases: the generic resource list does the rest. */
export const databaseKind: ResourceKind<DatabaseRecord, DatabaseSortField> = {
  accessKind: 'db',
  recordsPrefix: databasesPrefix,
  heartbeatsPrefix: '/database_heartbeats/',
  parse: (item: Item) => JSON.parse(item.value) as DatabaseRecord,
  idOf: (db) => db.metadata.name,
  isId: (id) => databaseNamePattern.test(id),
  labelsOf: (db) => db.metadata.labels,
  searchTextsOf: (db) => [db.metadata.name, db.metadata.description, databaseTypeTitle(db)],
  sortValues: {
    name: (db) => db.metadata.name,
    description: (db) => db.metadata.description,
    type: (db) => databaseTypeTitle(db),
  },
  expiresOf: (db) => db.expires,
  heartbeatTtlMs: 90_000,
};

/** The host and port of `host:port` (IPv6 without its brackets). */
export function databaseAddress(db: DatabaseResource): { host: string; port: number } {
  const at = db.spec.uri.lastIndexOf(':');
  return {
    host: db.spec.uri.slice(0, at).replace(/^\[|\]$/g, ''),
    port: Number(db.spec.uri.slice(at + 1)),
  };
}
