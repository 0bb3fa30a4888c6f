import {
  apiPaths,
  kubeClusterListQuerySchema,
  type KubeClusterListResponse,
  type KubeLoginResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { badParameter, notFound } from '../../errors.js';
import { listViewer, type SearchAs } from '../../http/list-viewer.js';
import { parseInput } from '../../http/parse-input.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import { kubeServerName, type KubeCa } from './kube-ca.js';
import { kubePathPrefix } from './kube-api-proxy.js';
import type { KubeClustersService } from './kube-clusters.service.js';
import { kubeClusterJson } from './kubernetes.routes.js';

interface KubeConnectOptions {
  clusters: KubeClustersService;
  certAuth: Pick<CertRequestAuth, 'identify' | 'identifyAllowed'>;
  ca: () => Promise<KubeCa>;
  /** `https://host:port` of the Kubernetes listener, or '' when none takes TLS from outside. */
  listenerUrl: () => string;
  /** `searchAsRoles=yes` (`postern request search`): the roles a resource request may use. */
  searchAs: SearchAs;
}

/** A `postern kube login` certificate lives as long as a CLI sign-in's does, at most. */
const loginCertTtlMs = 12 * 3_600_000;

type NameParams = { Params: { name: string } };

/**
 * `postern kube ls` and `postern kube login`: requests signed with the user's certificate from
 * `postern login`. Login answers a client certificate for one cluster, which kubectl presents to
 * the Kubernetes listener (docs/kubernetes.md).
 */
export async function kubeConnectRoutes(server: FastifyInstance, options: KubeConnectOptions) {
  const { clusters, certAuth, searchAs } = options;

  // Public for the guard: the request is authenticated by its certificate signature instead.
  server.get(apiPaths.kubeCatalog, { config: { access: 'public' } }, async (request) => {
    const { user, roleSet: own } = await certAuth.identifyAllowed(request, 'kubeServers', 'list');
    const query = parseInput(kubeClusterListQuerySchema, request.query);
    const viewer = { name: user, roleSet: own };
    const roleSet = (await listViewer(viewer, query.searchAsRoles, searchAs, 'kube_cluster'))!;
    const page = clusters.list(query, roleSet);
    return {
      items: page.rows.map((row) => kubeClusterJson(row, roleSet)),
      startKey: page.startKey,
      totalCount: page.totalCount,
    } satisfies KubeClusterListResponse;
  });

  server.post<NameParams>(
    apiPaths.patterns.kubeLogin,
    { config: { access: 'public' } },
    async (request): Promise<KubeLoginResponse> => {
      const identity = await certAuth.identify(request);
      const cluster = clusters.visible(request.params.name, identity.roleSet);
      if (!cluster) throw notFound(`no Kubernetes cluster named ${request.params.name}`);
      const base = options.listenerUrl();
      if (!base) {
        throw badParameter(
          'this proxy takes no TLS for Kubernetes: its web port is plain HTTP, so set kube_addr',
        );
      }
      const ca = await options.ca();
      // The login's assumed access requests come along: their roles count while approved.
      const issued = await ca.userCertificate(
        identity.user,
        cluster.metadata.name,
        loginCertTtlMs,
        identity.accessRequests,
      );
      return {
        cert: issued.certPem,
        key: issued.keyPem,
        ca: ca.certPem,
        expires: issued.notAfter.toISOString(),
        server: `${base}${kubePathPrefix}${encodeURIComponent(cluster.metadata.name)}`,
        tls_server_name: kubeServerName,
      };
    },
  );
}
