import {
  databaseResourceSchema,
  defaultDatabaseSort,
  type DatabaseResource,
  type DatabaseServiceJson,
  type DatabaseSortField,
  type createDatabaseRequestSchema,
  type updateDatabaseRequestSchema,
} from '@postern/contracts';
import { X509Certificate } from 'node:crypto';
import type { z } from 'zod';
import type { Actor } from '../../access-control/access/actor.js';
import type { RoleSet } from '../../access-control/rbac/index.js';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import { badParameter } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import {
  ResourceCatalog,
  type CatalogRecord,
  type CatalogRow,
} from '../../modules/inventory/resource-catalog.js';
import { databaseKind } from './db-kind.js';

export type DatabaseRow = CatalogRow<DatabaseResource>;
export type CreateDatabaseInput = z.output<typeof createDatabaseRequestSchema>;
export type UpdateDatabaseInput = z.output<typeof updateDatabaseRequestSchema>;

/** What serves any database made through the API, whatever its labels. */
const anyLabels = { '*': ['*'] };

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

  /** `POST …/databases`: a database the proxy serves, as `postern create -f` makes one. */
  async createFromRequest(
    input: CreateDatabaseInput,
    actor: Actor,
  ): Promise<CatalogRecord<DatabaseResource>> {
    if (input.ca_cert !== undefined) checkCaCert(input.ca_cert);
    const resource = databaseResourceSchema.parse({
      kind: 'db',
      metadata: { name: input.name, description: input.description, labels: input.labels },
      spec: {
        protocol: input.protocol,
        uri: input.uri,
        ca_cert: input.ca_cert,
        tls: input.tls ?? { mode: 'verify-full' },
      },
    });
    await this.create(resource, actor);
    return { ...resource, source: 'resource' };
  }

  /** `PUT …/databases/{name}`: what the input names changes, the rest stays. */
  updateFromRequest(
    name: string,
    input: UpdateDatabaseInput,
    actor: Actor,
  ): Promise<CatalogRecord<DatabaseResource>> {
    if (typeof input.ca_cert === 'string') checkCaCert(input.ca_cert);
    return this.update(
      name,
      (current) => {
        const { ca_cert: currentCa, ...spec } = current.spec;
        const caCert = input.ca_cert === undefined ? currentCa : (input.ca_cert ?? undefined);
        return databaseResourceSchema.parse({
          ...current,
          metadata: {
            ...current.metadata,
            description: input.description ?? current.metadata.description,
            labels: input.labels ?? current.metadata.labels,
          },
          spec: {
            ...spec,
            uri: input.uri ?? current.spec.uri,
            tls: input.tls ?? current.spec.tls,
            ...(caCert === undefined ? {} : { ca_cert: caCert }),
          },
        });
      },
      actor,
    );
  }

  /**
   * What serves databases (spec §3 Database service), by name: the proxy, which serves the
   * config file's and the API's databases and takes on any new one whatever its labels
   * (`{"*": ["*"]}`), and each agent serving a database the caller may see, which serves only
   * the databases on its own command line (`--db`), so it takes on none (`{}`). Agents whose
   * databases the caller may not see are left out, as those databases are.
   */
  services(proxyName: string, roleSet: RoleSet | null): DatabaseServiceJson[] {
    const proxy: DatabaseServiceJson = { name: proxyName, matcherLabels: anyLabels, databases: [] };
    const agents = new Map<string, DatabaseServiceJson>();
    for (const row of this.rows()) {
      const labelled = { labels: row.labels, name: row.resource.metadata.name };
      if (roleSet && !roleSet.canAccess('db', labelled)) continue;
      const db = row.resource;
      if (db.source !== 'agent') {
        proxy.databases.push(db.metadata.name);
        continue;
      }
      const agentId = db.agentId ?? '';
      const agent = agents.get(agentId) ?? { name: agentId, matcherLabels: {}, databases: [] };
      agent.databases.push(db.metadata.name);
      agents.set(agentId, agent);
    }
    const byName = (a: { name: string }, b: { name: string }) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    const all = [proxy, ...agents.values()];
    for (const service of all) service.databases.sort();
    return all.sort(byName);
  }

  /** One page of `services`: from `startKey` (a name) on, and the name that starts the next. */
  servicesPage(
    query: { limit: number; startKey: string },
    proxyName: string,
    roleSet: RoleSet | null,
  ): { items: DatabaseServiceJson[]; startKey: string } {
    const from = this.services(proxyName, roleSet).filter(
      (service) => service.name >= query.startKey,
    );
    return {
      items: from.slice(0, query.limit),
      startKey: from[query.limit]?.name ?? '',
    };
  }
}

/** A CA the proxy could not read would fail every connection: refused before it is stored. */
function checkCaCert(pem: string): void {
  try {
    new X509Certificate(pem);
  } catch {
    throw badParameter('ca_cert: not a readable PEM certificate');
  }
}
