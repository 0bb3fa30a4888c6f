import {
  defaultDatabaseSort,
  type DatabaseResource,
  type DatabaseSortField,
} from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { ResourceCatalog, type CatalogRow } from '../../modules/inventory/resource-catalog.js';
import { databaseKind } from './db-kind.js';

export type DatabaseRow = CatalogRow<DatabaseResource>;

/**
 * The databases: the catalog of the config file's, `postern create -f`'s and agents' databases,
 * listed with RBAC by `db_labels` before paging.
 */
export class DatabasesService extends ResourceCatalog<DatabaseResource, DatabaseSortField> {
  constructor(
    backend: Backend,
    audit: AuditStore,
    options: {
      now?: Clock;
      onError?: (error: unknown) => void;
      configured: readonly DatabaseResource[];
    },
  ) {
    super(
      backend,
      audit,
      {
        inventory: databaseKind,
        ruleKind: 'db',
        noun: 'database',
        audit: { created: 'TDB03I', updated: 'TDB04I', deleted: 'TDB05I' },
        defaultSort: defaultDatabaseSort,
      },
      options,
    );
  }
}
