import { apiPaths, type KubeLoginResponse } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { badParameter, notFound } from '../../errors.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import { kubeServerName, type KubeCa } from './kube-ca.js';
import { kubePathPrefix } from './kube-api-proxy.js';
import type { KubeClustersService } from './kube-clusters.service.js';

interface KubeConnectOptions {
  clusters: KubeClustersService;
  certAuth: Pick<CertRequestAuth, 'identify'>;
  ca: () => Promise<KubeCa>;
  /** `https://host:port` of the Kubernetes listener, or '' when none takes TLS from outside. */
  listenerUrl: () => string;
}

/** A `postern kube login` certificate lives as long as a CLI sign-in's does, at most. */
const loginCertTtlMs = 12 * 3_600_000;

type NameParams = { Params: { name: string } };

/**
 * `postern kube login`: requests signed with the user's certificate from
 * `postern login`. Login answers a client certificate for one cluster, which kubectl presents to
 * the Kubernetes listener (docs/kubernetes.md).
 */
export async function kubeConnectRoutes(server: FastifyInstance, options: KubeConnectOptions) {
  const { clusters, certAuth } = options;

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
