import {
  SessionMfa,
  sessionMfaNeeded,
  webSessionMfaSubject,
} from '../../identity/mfa/session-mfa.js';
import {
  apiPaths,
  appAuthPath,
  appListQuerySchema,
  createAppSessionRequestSchema,
  jwksPath,
  type AppJson,
  type AppListResponse,
  type CreateAppSessionResponse,
  type ResolveAppResponse,
} from '@postern/contracts';
import { resourceListRoute } from '../../http/resource-list-route.js';
import type { FastifyInstance } from 'fastify';
import type { ListContext } from '../../http/resource-listers.js';
import { resolveClusterId } from '../../cluster-context.js';
import { accessDenied, ApiError, badParameter, notFound } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import { isTcpApp, type AppRecord } from './app-kind.js';
import type { AppJwtSigner } from './app-jwt.js';
import type { AppSessionsService } from './app-sessions.service.js';
import type { AppRow, AppsService } from './apps.service.js';
import type { LeafReachPoint } from '../../modules/trusted-clusters/leaf-reach.js';
import { launchLeafApp } from './leaf/leaf-app-launch.js';

interface AppsRoutesOptions extends ListContext {
  apps: AppsService;
  sessions: AppSessionsService;
  jwt: AppJwtSigner;
  /** `https://host:port` of app origins, without the app's host: scheme and port suffix. */
  appOrigin: (host: string) => string;
  /** Per-session MFA for launches whose roles ask for it. */
  sessionMfa: Pick<SessionMfa, 'verify'>;
  /** A trusted leaf's web apps, launched here and served on this root's host names. */
  leaves?: { reach: Pick<LeafReachPoint, 'side' | 'isLeaf'>; proxyHost: () => string };
}

type ResolveParams = { Params: { fqdn: string; clusterId?: string; publicAddr?: string } };

/** Applications (spec §7): the list, the launcher's lookup and session, and the JWT keys. */
export async function appsRoutes(app: FastifyInstance, options: AppsRoutesOptions) {
  const { apps, sessions, jwt, clusterName, appOrigin, sessionMfa } = options;

  resourceListRoute(app, options, {
    path: apiPaths.patterns.apps,
    signedPath: apiPaths.appCatalog,
    area: 'appServers',
    resourceType: 'app',
    query: appListQuerySchema,
    list: (query, viewer) => apps.list(query, viewer),
    json: (row, _viewer, clusterId): AppListResponse['items'][number] =>
      appJson(row, clusterId, apps),
  });

  for (const pattern of [
    apiPaths.patterns.resolveApp,
    apiPaths.patterns.resolveAppInCluster,
    apiPaths.patterns.resolveAppAt,
  ]) {
    app.get<ResolveParams>(
      pattern,
      { config: { access: { area: 'appServers', verb: 'read' } } },
      async (request): Promise<ResolveAppResponse> => {
        const { fqdn, clusterId = clusterName } = request.params;
        resolveClusterId(clusterId, clusterName);
        const found = visibleApp(fqdn, actorOf(request).roleSet);
        return {
          fqdn: apps.publicHostOf(found),
          clusterId: clusterName,
          publicAddr: apps.publicHostOf(found),
          name: found.metadata.name,
        };
      },
    );
  }

  app.post(
    apiPaths.appSession,
    { config: { access: { area: 'appServers', verb: 'read' } } },
    async (request): Promise<CreateAppSessionResponse> => {
      const body = parseInput(createAppSessionRequestSchema, request.body);
      const identity = request.identity!;
      const leaf = body.cluster_name;
      if (leaf && leaf !== clusterName && options.leaves?.reach.isLeaf(leaf)) {
        const { reach, proxyHost } = options.leaves;
        const deps = { reach: reach.side!, sessions, sessionMfa, proxyHost, appOrigin };
        return launchLeafApp(leaf, identity, body, request.headers.origin, deps);
      }
      if (body.cluster_name) resolveClusterId(body.cluster_name, clusterName);
      const found = apps.byHost(body.fqdn.toLowerCase());
      if (!found) throw notFound(`no application at ${body.fqdn}`);
      if (
        !identity.roleSet.canAccess('app', {
          labels: found.metadata.labels,
          name: found.metadata.name,
        })
      ) {
        throw accessDenied(`access to application ${found.metadata.name} is denied`);
      }
      if (isTcpApp(found)) {
        throw badParameter(
          `${found.metadata.name} is a TCP app: use postern proxy app ${found.metadata.name}`,
        );
      }
      // require_session_mfa: each launch after a fresh check, bound to this session and app.
      let checkedWith: string | undefined;
      if (SessionMfa.required(identity.roleSet)) {
        if (!body.mfa_response) {
          throw new ApiError('mfa_required', sessionMfaNeeded('this application'));
        }
        const subject = webSessionMfaSubject(identity.session.id, `app:${body.fqdn}`);
        const { origin } = request.headers;
        checkedWith = await sessionMfa.verify(identity.user, subject, body.mfa_response, origin);
      }
      const state = await sessions.launch(identity.session, found, checkedWith);
      const host = apps.publicHostOf(found);
      const exchange = new URL(appAuthPath, appOrigin(host));
      exchange.searchParams.set('state', state);
      exchange.searchParams.set('path', body.path);
      return { fqdn: host, redirectUrl: exchange.toString(), value: state };
    },
  );

  app.get(jwksPath, { config: { access: 'public' } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return jwt.jwks();
  });

  /** The app at `fqdn` if the caller may reach it; 404 alike for unknown and hidden ones. */
  function visibleApp(fqdn: string, roleSet: Parameters<AppsService['list']>[1]): AppRecord {
    const found = apps.byHost(fqdn.toLowerCase());
    if (
      !found ||
      (roleSet &&
        !roleSet.canAccess('app', { labels: found.metadata.labels, name: found.metadata.name }))
    ) {
      throw notFound(`no application at ${fqdn}`);
    }
    return found;
  }
}

/** An app as the Applications page lists it. */
export function appJson(row: AppRow, clusterId: string, apps: AppsService): AppJson {
  const app = row.resource;
  const host = apps.publicHostOf(app);
  return {
    kind: 'app',
    name: app.metadata.name,
    description: app.metadata.description,
    uri: app.spec.uri,
    publicAddr: host,
    fqdn: host,
    clusterId,
    labels: Object.entries(row.labels)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => ({ name, value })),
    isTcp: isTcpApp(app),
    tunnel: app.source === 'agent',
    status: row.status,
    awsConsole: false,
    awsRoles: [],
  };
}
