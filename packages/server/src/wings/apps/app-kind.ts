import { appNamePattern, type AppResource, type AppSortField } from '@postern/contracts';
import type { Item } from '../../backend/index.js';
import type { CatalogRecord } from '../../modules/inventory/resource-catalog.js';
import type { ResourceKind } from '../../modules/inventory/resource-kind.js';

/**
 * An app as stored under `/apps/<name>`: the resource, where it came from and, for an agent's,
 * when it expires unless the agent reports again (modules/inventory/resource-catalog.ts).
 */
export type AppRecord = CatalogRecord<AppResource>;

export const appsPrefix = '/apps/';

/** The inventory's view of apps: the generic resource list does the rest (modules/inventory). */
export const appKind: ResourceKind<AppRecord, AppSortField> = {
  accessKind: 'app',
  recordsPrefix: appsPrefix,
  heartbeatsPrefix: '/app_heartbeats/',
  parse: (item: Item) => JSON.parse(item.value) as AppRecord,
  idOf: (app) => app.metadata.name,
  isId: (id) => appNamePattern.test(id),
  labelsOf: (app) => app.metadata.labels,
  searchTextsOf: (app) => [app.metadata.name, app.metadata.description, app.spec.public_addr ?? ''],
  sortValues: {
    name: (app) => app.metadata.name,
    description: (app) => app.metadata.description,
    publicAddr: (app) => app.spec.public_addr ?? app.metadata.name,
  },
  expiresOf: (app) => app.expires,
  heartbeatTtlMs: 90_000,
};

export const isTcpApp = (app: AppResource) => /^tcp:/i.test(app.spec.uri);
