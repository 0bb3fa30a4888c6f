import { defaultAppSort, type AppResource, type AppSortField } from '@postern/contracts';
import { AlreadyExistsError, type Backend } from '../../backend/index.js';
import { systemClock, type Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { assertMay, type Actor } from '../../access-control/access/actor.js';
import type { RoleSet } from '../../access-control/rbac/index.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit } from '../../modules/audit/emit.js';
import type { ResourceListCriteria } from '../../modules/inventory/page-walk.js';
import {
  ResourceInventory,
  type ResourcePage,
  type ResourceRow,
} from '../../modules/inventory/resource-inventory.js';
import { appKind, appsPrefix, type AppRecord } from './app-kind.js';

export type AppRow = ResourceRow<AppRecord>;

export interface AppsServiceOptions {
  now?: Clock;
  onError?: (error: unknown) => void;
  /** The apps of the config file, written at start. */
  configApps: readonly AppResource[];
  /** The proxy's public host name: an app without public_addr is `<name>.<this>`. */
  proxyHost: () => string;
}

/**
 * The applications: records in storage (the config file's, `postern create -f`'s and agents'),
 * listed through the generic inventory (RBAC by `app_labels` before paging), and found by the
 * host name a request came for.
 */
export class AppsService {
  readonly inventory: ResourceInventory<AppRecord, AppSortField>;

  constructor(
    private readonly backend: Backend,
    private readonly audit: AuditStore,
    private readonly options: AppsServiceOptions,
  ) {
    this.inventory = new ResourceInventory(backend, appKind, {
      now: options.now ?? systemClock,
      onError: options.onError,
    });
  }

  /** Writes the config file's apps (and drops config apps no longer in it), then loads all. */
  async start(): Promise<void> {
    const configured = new Set(this.options.configApps.map((app) => app.metadata.name));
    const { items } = await this.backend.list({ prefix: appsPrefix });
    for (const item of items) {
      const record = appKind.parse(item);
      if (record.source === 'config' && !configured.has(record.metadata.name)) {
        await this.backend.delete(item.key);
      }
    }
    for (const app of this.options.configApps) {
      await this.write({ ...app, source: 'config' });
    }
    await this.inventory.start();
  }

  close(): Promise<void> {
    return this.inventory.close();
  }

  count(): number {
    return this.inventory.count();
  }

  list(
    criteria: ResourceListCriteria<AppSortField>,
    access: RoleSet | null,
  ): ResourcePage<AppRecord> {
    return this.inventory.list(criteria, access, defaultAppSort);
  }

  /** Every live app with its status, for the CLI. */
  rows(): AppRow[] {
    return this.inventory.rows();
  }

  get(name: string): AppRecord | undefined {
    return this.inventory.get(name);
  }

  /** The host name the browser reaches the app at. */
  publicHostOf(app: AppResource): string {
    return (
      app.spec.public_addr ?? `${app.metadata.name}.${this.options.proxyHost()}`
    ).toLowerCase();
  }

  /** The app served at `host` (lower-case, no port), if any. */
  byHost(host: string): AppRecord | undefined {
    const suffix = `.${this.options.proxyHost().toLowerCase()}`;
    if (host.endsWith(suffix)) {
      const app = this.get(host.slice(0, -suffix.length));
      if (app && !app.spec.public_addr) return app;
    }
    // Index entries, not rows: a row works out each app's status, which a lookup never needs.
    return this.inventory
      .visibleEntries(null)
      .find((entry) => entry.resource.spec.public_addr?.toLowerCase() === host)?.resource;
  }

  /** `postern create -f`: a new app, or with `force` one that replaces the app of that name. */
  async create(app: AppResource, actor: Actor, force = false): Promise<{ created: boolean }> {
    assertMay(actor, 'app', force ? 'update' : 'create', app, app.metadata.name);
    const record: AppRecord = { ...app, source: 'resource' };
    const key = appsPrefix + app.metadata.name;
    let created = true;
    try {
      await this.backend.create({ key, value: JSON.stringify(record) });
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      if (!force) {
        throw new ApiError('already_exists', `app ${app.metadata.name} already exists`);
      }
      await this.write(record);
      created = false;
    }
    await emitAudit(this.audit, created ? 'TAP03I' : 'TAP04I', {
      user: actor.name,
      name: app.metadata.name,
    });
    return { created };
  }

  async remove(name: string, actor: Actor): Promise<void> {
    const app = this.get(name) ?? (await this.read(name));
    if (!app) throw notFound(`app ${name} is not found`);
    assertMay(actor, 'app', 'delete', app, name);
    await this.backend.delete(appsPrefix + name);
    await emitAudit(this.audit, 'TAP05I', { user: actor.name, name });
  }

  /**
   * An agent's heartbeat: its apps, written as agent records that expire after `ttlMs` unless
   * reported again, and marked online as long. A name the config file or `postern create` already
   * took stays theirs: an agent cannot take over an app the proxy defines.
   */
  async reportAgentApps(nodeId: string, apps: readonly AppResource[], ttlMs: number) {
    const expires = new Date(this.now() + ttlMs).toISOString();
    for (const app of apps) {
      const name = app.metadata.name;
      const current = this.get(name) ?? (await this.read(name));
      if (current && current.source !== 'agent') {
        this.warnTaken(nodeId, name);
        continue;
      }
      await this.write({ ...app, source: 'agent', agentId: nodeId, expires });
      await this.inventory.markOnline(name, ttlMs);
    }
  }

  private readonly takenWarned = new Set<string>();

  /** Once per agent and app: every heartbeat would say the same. */
  private warnTaken(nodeId: string, name: string): void {
    const key = `${nodeId}\0${name}`;
    if (this.takenWarned.has(key)) return;
    this.takenWarned.add(key);
    this.options.onError?.(
      new Error(`agent ${nodeId} serves app ${name}, a name this proxy defines: ignored`),
    );
  }

  private now(): number {
    return (this.options.now ?? systemClock)();
  }

  private async read(name: string): Promise<AppRecord | undefined> {
    const item = await this.backend.get(appsPrefix + name);
    return item ? appKind.parse(item) : undefined;
  }

  private write(record: AppRecord): Promise<unknown> {
    return this.backend.upsert({
      key: appsPrefix + record.metadata.name,
      value: JSON.stringify(record),
      ...(record.expires ? { expires: new Date(record.expires) } : {}),
    });
  }
}
