import { resourceListMaxLimit, type AclArea, type AclVerb } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { RoleSet } from '../access-control/rbac/index.js';
import { resolveClusterId } from '../cluster-context.js';
import { listViewer, type SearchAs } from './list-viewer.js';
import type { ResourceListers } from './resource-listers.js';
import { parseInput } from './parse-input.js';
import { actorOf } from './request-identity.js';
import type { Actor } from '../access-control/access/actor.js';

/** One page of rows as a wing's catalog lists them, filtered by the viewer before paging. */
interface RowPage<Row> {
  rows: Row[];
  startKey: string;
  totalCount: number;
}

/** What sets one wing's resource list apart from the others. */
export interface ResourceListRoute<S extends z.ZodType<{ searchAsRoles?: string }>, Row, Json> {
  /** The route pattern, `/v1/webapi/sites/:clusterId/<resources>`. */
  path: string;
  /**
   * The same list for the CLI (`postern ls`, `apps ls`, `db ls`, `kube ls`, `request search`),
   * signed with the user's certificate from `postern login` instead of a web session.
   */
  signedPath?: string;
  /** The ACL area whose `list` verb the route needs (`dbServers`, `kubeServers`, …). */
  area: AclArea;
  /** The resource kind access requests name, for `searchAsRoles=yes` (`db`, `kube_cluster`, …). */
  resourceType: string;
  /** The query at the edge: paging, sort, search, labels and searchAsRoles. */
  query: S;
  list: (query: z.output<S>, viewer: RoleSet | null) => RowPage<Row>;
  /** A row as the console shows it, seen with the viewer's roles (logins, users). */
  json: (row: Row, viewer: RoleSet | null, clusterId: string) => Json;
}

/** Who signed a CLI request, checked for an ACL verb (identity/cli-login/cert-request-auth.ts). */
export interface SignedRequestAuth {
  identifyAllowed(
    request: FastifyRequest,
    area: AclArea,
    verb: AclVerb,
  ): Promise<{ user: string; roleSet: RoleSet }>;
}

type Page<Json> = { items: Json[]; startKey: string; totalCount: number };

/**
 * A wing's resource list (spec §7, `GET /sites/{clusterId}/<resources>`), the same for every
 * protocol: the cluster checked, the query parsed, the rows seen with the caller's roles (or,
 * with `searchAsRoles=yes`, the roles they may request resources as, reference §1.5), and the
 * page answered as `{items, startKey, totalCount}`. With `signedPath`, the same list answers the
 * CLI there: the guard lets it through (no web session) and the signature is checked instead,
 * with the same ACL verb.
 */
export function resourceListRoute<S extends z.ZodType<{ searchAsRoles?: string }>, Row, Json>(
  app: FastifyInstance,
  context: {
    clusterName: string;
    searchAs: SearchAs;
    certAuth?: SignedRequestAuth;
    /** Where `resources/check` finds this list (resource-listers.ts). */
    listers?: ResourceListers;
  },
  route: ResourceListRoute<S, Row, Json>,
): void {
  context.listers?.add({
    area: route.area,
    kind: route.resourceType,
    anyVisible: (viewer) =>
      route.list(parseInput(route.query, { limit: '1' }), viewer).rows.length > 0,
    all: (filter, viewer, clusterId) => {
      const items: Json[] = [];
      let startKey = '';
      do {
        const limit = String(resourceListMaxLimit);
        const query = parseInput(route.query, { ...filter, limit, startKey });
        const page = route.list(query, viewer);
        items.push(...page.rows.map((row) => route.json(row, viewer, clusterId)));
        startKey = page.startKey;
      } while (startKey);
      return items as object[];
    },
  });
  const answer = async (
    actor: Actor,
    rawQuery: unknown,
    clusterId: string,
  ): Promise<Page<Json>> => {
    const query = parseInput(route.query, rawQuery);
    const viewer = await listViewer(
      actor,
      query.searchAsRoles,
      context.searchAs,
      route.resourceType,
    );
    const page = route.list(query, viewer);
    return {
      items: page.rows.map((row) => route.json(row, viewer, clusterId)),
      startKey: page.startKey,
      totalCount: page.totalCount,
    };
  };

  app.get<{ Params: { clusterId: string } }>(
    route.path,
    { config: { access: { area: route.area, verb: 'list' } } },
    async (request): Promise<Page<Json>> => {
      const clusterId = resolveClusterId(request.params.clusterId, context.clusterName);
      return answer(actorOf(request), request.query, clusterId);
    },
  );

  if (!route.signedPath) return;
  const { certAuth } = context;
  if (!certAuth) throw new Error(`${route.signedPath}: a signed list needs certAuth`);
  app.get(route.signedPath, { config: { access: 'public' } }, async (request) => {
    const { user, roleSet } = await certAuth.identifyAllowed(request, route.area, 'list');
    return answer({ name: user, roleSet }, request.query, context.clusterName);
  });
}
