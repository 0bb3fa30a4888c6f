import { defaultAppSort, type AppResource, type AppSortField } from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { ResourceCatalog, type CatalogRow } from '../../modules/inventory/resource-catalog.js';
import { appKind, type AppRecord } from './app-kind.js';

export type AppRow = CatalogRow<AppResource>;

export interface AppsServiceOptions {
  now?: Clock;
  onError?: (error: unknown) => void;
  /** The apps of the config file, written at start. */
  configApps: readonly AppResource[];
  /** The proxy's public host name: an app without public_addr is `<name>.<this>`. */
  proxyHost: () => string;
}

/**
 * The applications: the catalog of the config file's, `postern create -f`'s and agents' apps
 * (RBAC by `app_labels` before paging), and found by the host name a request came for.
 */
export class AppsService extends ResourceCatalog<AppResource, AppSortField> {
  constructor(
    backend: Backend,
    audit: AuditStore,
    private readonly appOptions: AppsServiceOptions,
  ) {
    super(
      backend,
      audit,
      {
        inventory: appKind,
        ruleKind: 'app',
        noun: 'app',
        audit: { created: 'TAP03I', updated: 'TAP04I', deleted: 'TAP05I' },
        defaultSort: defaultAppSort,
      },
      { now: appOptions.now, onError: appOptions.onError, configured: appOptions.configApps },
    );
  }

  /** The host name the browser reaches the app at. */
  publicHostOf(app: AppResource): string {
    return (
      app.spec.public_addr ?? `${app.metadata.name}.${this.appOptions.proxyHost()}`
    ).toLowerCase();
  }

  /** The app served at `host` (lower-case, no port), if any. */
  byHost(host: string): AppRecord | undefined {
    const suffix = `.${this.appOptions.proxyHost().toLowerCase()}`;
    if (host.endsWith(suffix)) {
      const app = this.get(host.slice(0, -suffix.length));
      if (app && !app.spec.public_addr) return app;
    }
    // Index entries, not rows: a row works out each app's status, which a lookup never needs.
    return this.inventory
      .visibleEntries(null)
      .find((entry) => entry.resource.spec.public_addr?.toLowerCase() === host)?.resource;
  }
}
