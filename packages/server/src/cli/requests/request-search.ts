import {
  apiPaths,
  appListResponseSchema,
  databaseListResponseSchema,
  kubeClusterListResponseSchema,
  nodeListResponseSchema,
} from '@postern/contracts';
import type { z } from 'zod';
import { ConfigError } from '../../config/config-error.js';
import { signedClient } from '../login/signed-client.js';
import { printTable, type Print, labelListCell } from '../table.js';

/** One requestable resource: the name a request names it by, and how a person knows it. */
interface Found {
  name: string;
  shown: string;
  labels: { name: string; value: string }[];
}

interface Searchable<T> {
  path: string;
  schema: z.ZodType<{ items: T[] }>;
  found: (item: T) => Found;
}

const searchable = <T>(kind: Searchable<T>) => kind;

/**
 * The signed catalogs a resource request can be built from, each asked with `searchAsRoles=yes`:
 * what the user's search_as_roles reach, not what their roles reach now.
 */
const kinds = {
  node: searchable({
    path: apiPaths.sshNodes,
    schema: nodeListResponseSchema,
    // A node is requested by its id; people know it by its hostname.
    found: (node) => ({ name: node.id, shown: node.hostname, labels: node.tags }),
  }),
  app: searchable({
    path: apiPaths.appCatalog,
    schema: appListResponseSchema,
    found: (app) => ({ name: app.name, shown: app.description ?? '', labels: app.labels }),
  }),
  db: searchable({
    path: apiPaths.databaseCatalog,
    schema: databaseListResponseSchema,
    found: (db) => ({ name: db.name, shown: db.desc, labels: db.labels }),
  }),
  kube_cluster: searchable({
    path: apiPaths.kubeCatalog,
    schema: kubeClusterListResponseSchema,
    found: (cluster) => ({ name: cluster.name, shown: '', labels: cluster.labels }),
  }),
};

export type SearchableKind = keyof typeof kinds;
export const searchableKinds = Object.keys(kinds) as SearchableKind[];

/**
 * `postern request search --kind KIND [--search WORDS]`: the resources of a kind that the user
 * may ask for, with the `postern request create` line that asks (as `tsh request search`).
 */
export async function searchRequestable(
  env: NodeJS.ProcessEnv,
  kind: string,
  search: string,
  print: Print,
): Promise<void> {
  if (!(kind in kinds)) {
    throw new ConfigError(`--kind ${kind}: one of ${searchableKinds.join(', ')}`);
  }
  const { path, schema, found } = kinds[kind as SearchableKind] as Searchable<unknown>;
  const query = new URLSearchParams({ searchAsRoles: 'yes', limit: '1000', search });
  const { get } = await signedClient(env);
  const rows = (await get(`${path}?${query}`, schema)).items.map(found);
  if (rows.length === 0)
    return print(`No ${kind} that you may request${search ? ` matching "${search}"` : ''}.`);
  printTable(
    ['NAME', '', 'LABELS'],
    rows.map((row) => [row.name, row.shown, labelListCell(row.labels)]),
    print,
  );
  print('');
  print(`Ask with: postern request create --resource ${kind}/NAME --reason "..."`);
}
