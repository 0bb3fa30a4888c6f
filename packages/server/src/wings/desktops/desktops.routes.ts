import {
  apiPaths,
  desktopListQuerySchema,
  resourceListQuerySchema,
  type DesktopJson,
  type DesktopListResponse,
  type DesktopServiceJson,
} from '@postern/contracts';
import type { ListContext } from '../../http/resource-listers.js';
import { resourceListRoute } from '../../http/resource-list-route.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { resolveClusterId } from '../../cluster-context.js';
import { notFound } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import { shownAddr } from './desktop-kind.js';
import type { DesktopRow, DesktopsService } from './desktops.service.js';

interface DesktopsRoutesOptions extends ListContext {
  desktops: DesktopsService;
  /** Whether a session on the desktop is live now, on any proxy. */
  active: (name: string) => boolean;
  /** The name the proxy goes by as a desktop service: its public host name. */
  proxyServiceName: () => string;
}

type ClusterParams = { Params: { clusterId: string } };
type DesktopParams = { Params: { clusterId: string; desktopName: string } };

const serviceListQuerySchema = resourceListQuerySchema(['name'] as const);

/**
 * Desktops (spec §7): the list and one desktop as the caller's roles let them see them, whether
 * one has a live session, and the desktop services (the proxy and the agents serving desktops).
 */
export async function desktopsRoutes(app: FastifyInstance, options: DesktopsRoutesOptions) {
  const { desktops, clusterName } = options;

  const visibleRow = (request: FastifyRequest<DesktopParams>, roleSet: RoleSet | null) => {
    resolveClusterId(request.params.clusterId, clusterName);
    const desktop = desktops.visible(request.params.desktopName, roleSet);
    if (!desktop) throw notFound(`no desktop named ${request.params.desktopName}`);
    return desktops.inventory.row(desktop);
  };

  resourceListRoute(app, options, {
    path: apiPaths.patterns.desktops,
    area: 'desktops',
    resourceType: 'windows_desktop',
    query: desktopListQuerySchema,
    list: (query, viewer) => desktops.list(query, viewer),
    json: (row, viewer): DesktopListResponse['items'][number] => desktopJson(row, viewer),
  });

  app.get<DesktopParams>(
    apiPaths.patterns.desktop,
    { config: { access: { area: 'desktops', verb: 'read' } } },
    async (request): Promise<DesktopJson> => {
      const roleSet = actorOf(request).roleSet;
      return desktopJson(visibleRow(request, roleSet), roleSet);
    },
  );

  app.get<DesktopParams>(
    apiPaths.patterns.desktopActive,
    { config: { access: { area: 'desktops', verb: 'read' } } },
    async (request) => {
      const row = visibleRow(request, actorOf(request).roleSet);
      return { active: options.active(row.resource.metadata.name) };
    },
  );

  app.get<ClusterParams>(
    apiPaths.patterns.desktopServices,
    { config: { access: { area: 'desktops', verb: 'list' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      const query = parseInput(serviceListQuerySchema, request.query);
      const roleSet = actorOf(request).roleSet;
      const all = desktopServices(desktops, options.proxyServiceName(), roleSet).filter(
        (service) => service.name >= (query.startKey ?? ''),
      );
      const limit = query.limit;
      return {
        items: all.slice(0, limit),
        startKey: all[limit]?.name ?? '',
        totalCount: all.length,
      };
    },
  );
}

/** A desktop as the list shows it, with the logins this user's roles allow there. */
export function desktopJson(row: DesktopRow, roleSet: RoleSet | null): DesktopJson {
  const desktop = row.resource;
  return {
    kind: 'windows_desktop',
    name: desktop.metadata.name,
    description: desktop.metadata.description,
    protocol: desktop.spec.protocol,
    os: desktop.spec.os,
    addr: shownAddr(desktop),
    host_id: desktop.spec.host_id || (desktop.agentId ?? ''),
    labels: Object.entries(row.labels)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => ({ name, value })),
    logins: roleSet
      ? roleSet.desktopLoginsFor({ labels: row.labels, name: desktop.metadata.name })
      : [],
    tunnel: desktop.source === 'agent',
    status: row.status,
  };
}

/** What serves desktops the caller may see: the proxy, and each agent serving one, by name. */
function desktopServices(
  desktops: DesktopsService,
  proxyName: string,
  roleSet: RoleSet | null,
): DesktopServiceJson[] {
  const services = new Map<string, DesktopServiceJson>();
  for (const row of desktops.rows()) {
    const labelled = { labels: row.labels, name: row.resource.metadata.name };
    if (roleSet && !roleSet.canAccess('desktop', labelled)) continue;
    const agent = row.resource.source === 'agent' ? (row.resource.agentId ?? '') : '';
    const name = agent || proxyName;
    if (!services.has(name)) {
      services.set(name, {
        name,
        hostname: agent ? agent : proxyName,
        addr: agent ? '' : proxyName,
        labels: agent
          ? Object.entries(row.labels).map(([label, value]) => ({ name: label, value }))
          : [],
      });
    }
  }
  return [...services.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
