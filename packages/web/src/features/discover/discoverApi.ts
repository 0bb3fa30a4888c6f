import {
  apiPaths,
  appListResponseSchema,
  connectionDiagnosticSchema,
  databaseListResponseSchema,
  desktopListResponseSchema,
  internalResourceIdLabel,
  joinTokenJsonSchema,
  kubeClusterListResponseSchema,
  labelClause,
  nodeListResponseSchema,
  type ConnectionDiagnostic,
  type JoinTokenJson,
  type JoinTokenRole,
} from '@postern/contracts';
import type { z } from 'zod';
import { api, decode } from '../../api';
import type { EnrolledList } from './enrollKinds';

/** `POST /v1/webapi/token`: a join token for one role, labelled for the host that uses it. */
export async function createJoinToken(
  role: JoinTokenRole,
  labels: Record<string, string>,
): Promise<JoinTokenJson> {
  const body = { roles: [role], join_method: 'token', suggested_agent_matcher_labels: labels };
  return decode(joinTokenJsonSchema, await api.post(apiPaths.joinToken, body), apiPaths.joinToken);
}

/** Each list's call, and how its items are named ("hostname" for servers, as listed). */
const lists: Record<
  EnrolledList,
  { path: (clusterId: string) => string; names: (json: unknown, url: string) => string[] }
> = {
  nodes: {
    path: apiPaths.nodes,
    names: (json, url) => decode(nodeListResponseSchema, json, url).items.map((n) => n.hostname),
  },
  apps: { path: apiPaths.apps, names: named(appListResponseSchema) },
  databases: { path: apiPaths.databases, names: named(databaseListResponseSchema) },
  kubernetes: { path: apiPaths.kubernetes, names: named(kubeClusterListResponseSchema) },
  desktops: { path: apiPaths.desktops, names: named(desktopListResponseSchema) },
};

function named(schema: z.ZodType<{ items: { name: string }[] }>) {
  return (json: unknown, url: string) => decode(schema, json, url).items.map((item) => item.name);
}

/** How to recognise the joined resource in its list. */
export type EnrolledMatch =
  /** A server: the join token's resource id, which the node gets as a label (reference §1.11). */
  | { resourceId: string }
  /** Everything else: the name the form gave it. */
  | { name: string };

/**
 * The joined resource's name, or undefined while it has not joined. Asks the list the resource
 * shows in, narrowed by the server (a label query, or a search for the name).
 */
export async function findEnrolled(
  clusterId: string,
  list: EnrolledList,
  match: EnrolledMatch,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const { path, names } = lists[list];
  const params = new URLSearchParams({ limit: '50' });
  if ('resourceId' in match)
    params.set('query', labelClause(internalResourceIdLabel, match.resourceId));
  else params.set('search', match.name);
  const url = `${path(clusterId)}?${params.toString()}`;
  const found = names(await api.get(url, { signal }), url);
  return 'resourceId' in match ? found[0] : found.find((name) => name === match.name);
}

/**
 * `POST /sites/{clusterId}/diagnostics/connections`: the proxy tries the way to a database as the
 * caller would take it (their roles, the database user and name, the database answering).
 */
export async function testDatabaseConnection(
  clusterId: string,
  request: { name: string; dbUser: string; dbName: string },
): Promise<ConnectionDiagnostic> {
  const url = apiPaths.connectionDiagnostics(clusterId);
  const body = {
    resource_kind: 'db',
    resource_name: request.name,
    database_user: request.dbUser,
    database_name: request.dbName,
  };
  return decode(connectionDiagnosticSchema, await api.post(url, body), url);
}
