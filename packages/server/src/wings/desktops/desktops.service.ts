import {
  defaultDesktopSort,
  type DesktopResource,
  type DesktopSortField,
} from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { ResourceCatalog, type CatalogRow } from '../../modules/inventory/resource-catalog.js';
import { desktopKind } from './desktop-kind.js';

export type DesktopRow = CatalogRow<DesktopResource>;

/**
 * The desktops: the catalog of the config file's, `postern create -f`'s and agents' desktops,
 * listed with RBAC by `windows_desktop_labels` before paging.
 */
export class DesktopsService extends ResourceCatalog<DesktopResource, DesktopSortField> {
  constructor(
    backend: Backend,
    audit: AuditStore,
    options: {
      now?: Clock;
      onError?: (error: unknown) => void;
      configured: readonly DesktopResource[];
    },
  ) {
    super(
      backend,
      audit,
      {
        inventory: desktopKind,
        ruleKind: 'windows_desktop',
        noun: 'desktop',
        audit: { created: 'TDP20I', updated: 'TDP21I', deleted: 'TDP22I' },
        defaultSort: defaultDesktopSort,
      },
      options,
    );
  }
}
