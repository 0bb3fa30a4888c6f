import type { AuditCode } from '@postern/contracts';
import {
  AlreadyExistsError,
  CompareFailedError,
  NotFoundError,
  type Backend,
} from '../../backend/index.js';
import { systemClock, type Clock } from '../../clock.js';
import { ApiError, badParameter, notFound } from '../../errors.js';
import { assertMay, type Actor } from '../../access-control/access/actor.js';
import type { RoleSet } from '../../access-control/rbac/index.js';
import type { AuditStore } from '../audit/index.js';
import { emitAudit } from '../audit/emit.js';
import type { ResourceListCriteria } from './page-walk.js';
import { ResourceInventory, type ResourcePage, type ResourceRow } from './resource-inventory.js';
import type { ResourceKind } from './resource-kind.js';

/** Where a record came from: the config file, `postern create -f`, or an agent's heartbeat. */
export type CatalogSource = 'config' | 'resource' | 'agent';

/** A resource as a catalog stores it: where it came from and, for an agent's, when it expires. */
export type CatalogRecord<R> = R & {
  source: CatalogSource;
  /** RFC 3339: agents' records expire; the others live until removed. */
  expires?: string;
  /** The node id of the agent that reported it last (source `agent`). */
  agentId?: string;
};

interface Named {
  metadata: { name: string };
}

/** What a catalog needs besides the inventory's kind: names, rules and audit codes. */
export interface CatalogKind<R extends Named, F extends string> {
  readonly inventory: ResourceKind<CatalogRecord<R>, F>;
  /** The rule kind `create -f` and `rm` are checked against (`app`, `db`). */
  readonly ruleKind: string;
  /** How messages name one (`app`, `database`). */
  readonly noun: string;
  readonly audit: { created: AuditCode; updated: AuditCode; deleted: AuditCode };
  readonly defaultSort: { field: F; dir: 'asc' | 'desc' };
}

export interface CatalogOptions<R> {
  now?: Clock;
  onError?: (error: unknown) => void;
  /** The config file's resources, written at start (config records no longer there go). */
  configured: readonly R[];
}

export type CatalogRow<R> = ResourceRow<CatalogRecord<R>>;

/**
 * The resources of one wing (apps, databases, …) from its three sources: the config file's,
 * `postern create -f`'s and agents' heartbeats. Listed through the generic inventory (RBAC by the
 * kind's labels before paging). A name the proxy defines stays the proxy's: an agent cannot take
 * it over.
 */
export class ResourceCatalog<R extends Named, F extends string> {
  readonly inventory: ResourceInventory<CatalogRecord<R>, F>;
  readonly #prefix: string;

  constructor(
    private readonly backend: Backend,
    private readonly audit: AuditStore,
    private readonly kind: CatalogKind<R, F>,
    private readonly options: CatalogOptions<R>,
  ) {
    this.#prefix = kind.inventory.recordsPrefix;
    this.inventory = new ResourceInventory(backend, kind.inventory, {
      now: options.now ?? systemClock,
      onError: options.onError,
    });
  }

  /** Writes the config file's resources (and drops config records no longer in it), then loads all. */
  async start(): Promise<void> {
    const configured = new Set(this.options.configured.map((r) => r.metadata.name));
    const { items } = await this.backend.list({ prefix: this.#prefix });
    for (const item of items) {
      const record = this.kind.inventory.parse(item);
      if (record.source === 'config' && !configured.has(record.metadata.name)) {
        await this.backend.delete(item.key);
      }
    }
    for (const resource of this.options.configured) {
      await this.write({ ...resource, source: 'config' });
    }
    await this.inventory.start();
  }

  close(): Promise<void> {
    return this.inventory.close();
  }

  count(): number {
    return this.inventory.count();
  }

  list(criteria: ResourceListCriteria<F>, access: RoleSet | null): ResourcePage<CatalogRecord<R>> {
    return this.inventory.list(criteria, access, this.kind.defaultSort);
  }

  /** Every live record with its status, for the CLI. */
  rows(): CatalogRow<R>[] {
    return this.inventory.rows();
  }

  get(name: string): CatalogRecord<R> | undefined {
    return this.inventory.get(name);
  }

  /** The live record of that name if the roles reach it (null: the host's administrator). */
  visible(name: string, roleSet: RoleSet | null): CatalogRecord<R> | undefined {
    const record = this.get(name);
    if (!record || !roleSet) return record;
    const labels = this.kind.inventory.labelsOf(record);
    return roleSet.canAccess(this.kind.inventory.accessKind, { labels, name }) ? record : undefined;
  }

  /** One record by name with its labels, for access requests that name it (ServedKind.find). */
  find(name: string): { id: string; labels: Record<string, string> } | undefined {
    const record = this.get(name);
    return record && { id: name, labels: this.kind.inventory.labelsOf(record) };
  }

  /** `postern create -f`: a new resource, or with `force` one that replaces the one of that name. */
  async create(resource: R, actor: Actor, force = false): Promise<{ created: boolean }> {
    const { name } = resource.metadata;
    assertMay(actor, this.kind.ruleKind, force ? 'update' : 'create', resource, name);
    const record: CatalogRecord<R> = { ...resource, source: 'resource' };
    let created = true;
    try {
      await this.backend.create({ key: this.#prefix + name, value: JSON.stringify(record) });
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      if (!force) throw new ApiError('already_exists', `${this.kind.noun} ${name} already exists`);
      await this.write(record);
      created = false;
    }
    const code = created ? this.kind.audit.created : this.kind.audit.updated;
    await emitAudit(this.audit, code, { user: actor.name, name });
    return { created };
  }

  /**
   * Changes a resource made with `postern create -f` or the API: `change` gets it as a resource
   * file holds it and returns the new one, of the same name. The config file's and agents'
   * resources are read-only here: the next start or heartbeat would undo the change. A write
   * that races another is refused (compare_failed) rather than losing either.
   */
  async update(name: string, change: (current: R) => R, actor: Actor): Promise<CatalogRecord<R>> {
    const { noun } = this.kind;
    const item = await this.backend.get(this.#prefix + name);
    const current = item ? this.kind.inventory.parse(item) : undefined;
    if (!item || !current) throw notFound(`${noun} ${name} is not found`);
    if (current.source === 'config') {
      throw badParameter(
        `${noun} ${name} comes from the config file and is read-only here: change it there`,
      );
    }
    if (current.source === 'agent') {
      throw badParameter(
        `${noun} ${name} is served by agent ${current.agentId ?? '(unknown)'} and is read-only here: change the agent's flags`,
      );
    }
    assertMay(actor, this.kind.ruleKind, 'update', current, name);
    const next = change(asResource(current));
    if (next.metadata.name !== name) throw new Error(`an update may not rename ${noun} ${name}`);
    const record: CatalogRecord<R> = { ...next, source: 'resource' };
    try {
      await this.backend.update(
        { key: this.#prefix + name, value: JSON.stringify(record) },
        item.revision,
      );
    } catch (error) {
      if (!(error instanceof CompareFailedError || error instanceof NotFoundError)) throw error;
      throw new ApiError(
        'compare_failed',
        `${noun} ${name} was changed or removed meanwhile: reload it and apply your change again`,
      );
    }
    await emitAudit(this.audit, this.kind.audit.updated, { user: actor.name, name });
    return record;
  }

  async remove(name: string, actor: Actor): Promise<void> {
    const record = this.get(name) ?? (await this.read(name));
    if (!record) throw notFound(`${this.kind.noun} ${name} is not found`);
    assertMay(actor, this.kind.ruleKind, 'delete', record, name);
    await this.backend.delete(this.#prefix + name);
    await emitAudit(this.audit, this.kind.audit.deleted, { user: actor.name, name });
  }

  /**
   * An agent's heartbeat: its resources, written as agent records that expire after `ttlMs`
   * unless reported again, and marked online as long.
   */
  async reportFromAgent(nodeId: string, resources: readonly R[], ttlMs: number): Promise<void> {
    const expires = new Date(this.now() + ttlMs).toISOString();
    for (const resource of resources) {
      const name = resource.metadata.name;
      const current = this.get(name) ?? (await this.read(name));
      if (current && current.source !== 'agent') {
        this.warnTaken(nodeId, name);
        continue;
      }
      await this.write({ ...resource, source: 'agent', agentId: nodeId, expires });
      await this.inventory.markOnline(name, ttlMs);
    }
  }

  readonly #takenWarned = new Set<string>();

  /** Once per agent and name: every heartbeat would say the same. */
  private warnTaken(nodeId: string, name: string): void {
    const key = `${nodeId}\0${name}`;
    if (this.#takenWarned.has(key)) return;
    this.#takenWarned.add(key);
    this.options.onError?.(
      new Error(
        `agent ${nodeId} serves ${this.kind.noun} ${name}, a name this proxy defines: ignored`,
      ),
    );
  }

  protected now(): number {
    return (this.options.now ?? systemClock)();
  }

  private async read(name: string): Promise<CatalogRecord<R> | undefined> {
    const item = await this.backend.get(this.#prefix + name);
    return item ? this.kind.inventory.parse(item) : undefined;
  }

  private write(record: CatalogRecord<R>): Promise<unknown> {
    return this.backend.upsert({
      key: this.#prefix + record.metadata.name,
      value: JSON.stringify(record),
      ...(record.expires ? { expires: new Date(record.expires) } : {}),
    });
  }
}

/** A record as a resource file holds it: where it came from is storage's business. */
export function asResource<R>(record: CatalogRecord<R>): R {
  const { source: _source, expires: _expires, agentId: _agentId, ...resource } = record;
  return resource as unknown as R;
}
