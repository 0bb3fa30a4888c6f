import {
  apiPaths,
  kubeClusterListQuerySchema,
  kubeResourcesQuerySchema,
  type KubeClusterJson,
  type KubeClusterListResponse,
  type KubeResourcesResponse,
} from '@postern/contracts';
import { resourceListRoute } from '../../http/resource-list-route.js';
import type { FastifyInstance } from 'fastify';
import type { ListContext } from '../../http/resource-listers.js';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { resolveClusterId } from '../../cluster-context.js';
import { notFound } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import type { KubeClusterRow, KubeClustersService } from './kube-clusters.service.js';
import type { KubeResourcesReader } from './kube-resources.service.js';

interface KubernetesRoutesOptions extends ListContext {
  clusters: KubeClustersService;
  resources: KubeResourcesReader;
}

type NamedParams = { Params: { clusterId: string; name: string } };

/**
 * Kubernetes clusters in the console (spec §7): the list as the caller's roles let them see it,
 * and the namespaces and pods of one for Exec in browser's picker.
 */
export async function kubernetesRoutes(app: FastifyInstance, options: KubernetesRoutesOptions) {
  const { clusters, clusterName } = options;

  resourceListRoute(app, options, {
    path: apiPaths.patterns.kubernetes,
    signedPath: apiPaths.kubeCatalog,
    area: 'kubeServers',
    resourceType: 'kube_cluster',
    query: kubeClusterListQuerySchema,
    list: (query, viewer) => clusters.list(query, viewer),
    json: (row, viewer): KubeClusterListResponse['items'][number] => kubeClusterJson(row, viewer),
  });

  app.get<NamedParams>(
    apiPaths.patterns.kubeResources,
    { config: { access: { area: 'kubeServers', verb: 'read' } } },
    async (request): Promise<KubeResourcesResponse> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const query = parseInput(kubeResourcesQuerySchema, request.query);
      const { name: user, roleSet } = actorOf(request);
      const cluster = roleSet && clusters.visible(request.params.name, roleSet);
      if (!cluster) throw notFound(`no Kubernetes cluster named ${request.params.name}`);
      const items = await options.resources.list(
        { user, roleSet },
        cluster,
        query.kind,
        query.kubeNamespace,
      );
      return { items };
    },
  );
}

/** A cluster as the list shows it, with the users and groups this user may act as there. */
export function kubeClusterJson(row: KubeClusterRow, roleSet: RoleSet | null): KubeClusterJson {
  const cluster = row.resource;
  const labelled = { labels: row.labels, name: cluster.metadata.name };
  return {
    kind: 'kube_cluster',
    name: cluster.metadata.name,
    description: cluster.metadata.description,
    labels: Object.entries(row.labels)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => ({ name, value })),
    kubernetes_users: roleSet ? roleSet.kubeUsersFor(labelled) : [],
    kubernetes_groups: roleSet ? roleSet.kubeGroupsFor(labelled) : [],
    tunnel: cluster.source === 'agent',
    status: row.status,
  };
}
