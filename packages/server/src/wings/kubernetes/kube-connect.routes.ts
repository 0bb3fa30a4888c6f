import { apiPaths, kubeLoginRequestSchema, type KubeLoginResponse } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { badParameter, notFound } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import { SessionMfa } from '../../identity/mfa/session-mfa.js';
import { kubeServerName, type KubeCa } from './kube-ca.js';
import { kubePathPrefix } from './kube-path.js';
import type { KubeClustersService } from './kube-clusters.service.js';
import type { ClusterKube } from '../../modules/trusted-clusters/cluster-kube.js';
import { certCaller } from '../../modules/trusted-clusters/leaf-grants.js';
import { leafKubeLogin } from './leaf-kube-relay.js';

interface KubeConnectOptions {
  clusters: KubeClustersService;
  certAuth: Pick<CertRequestAuth, 'identify'>;
  ca: () => Promise<KubeCa>;
  /** `https://host:port` of the Kubernetes listener, or '' when none takes TLS from outside. */
  listenerUrl: () => string;
  sessionMfa: Pick<SessionMfa, 'verify'>;
  now: () => number;
  /** A trusted leaf's clusters, named `<cluster>.<leaf>` here (leaf-kube.ts). */
  clusterKube: Pick<ClusterKube, 'split' | 'rootSide'>;
}

/** A `postern kube login` certificate lives as long as a CLI sign-in's does, and never past it. */
const loginCertTtlMs = 12 * 3_600_000;
/** One that passed a per-session MFA check starts kubectl's connections for a minute. */
const sessionMfaCertTtlMs = 60_000;

type NameParams = { Params: { name: string } };

/**
 * `postern kube login` and kubectl's credential plugin (`postern kube credentials`): requests
 * signed with the user's certificate from `postern login`. Login answers a client certificate for
 * one cluster, which kubectl presents to the Kubernetes listener (docs/kubernetes.md). When the
 * roles ask for an MFA check for each session, the certificate only opens kubectl's connections
 * when it was asked for with an authenticator code: then it lasts a minute, and never past the
 * login behind it.
 */
export async function kubeConnectRoutes(server: FastifyInstance, options: KubeConnectOptions) {
  const { clusters, certAuth } = options;

  /**
   * The cluster's name if the user may reach it, and whether a leaf's roles ask for per-session
   * MFA there: one of this cluster's, or `prod.lab`, which the leaf `lab` is asked about with
   * the user's leaf session (its role map and roles decide).
   */
  const reachable = async (
    asked: string,
    identity: Parameters<typeof certCaller>[0],
  ): Promise<{ name: string; leafAsks: boolean }> => {
    const target = options.clusterKube.split(asked);
    const root = options.clusterKube.rootSide;
    if (target && root) {
      const onLeaf = await leafKubeLogin(root, target, certCaller(identity));
      if (!onLeaf.found)
        throw notFound(`no Kubernetes cluster named ${target.cluster} on ${target.leaf}`);
      return { name: asked, leafAsks: onLeaf.sessionMfaRequired };
    }
    const cluster = clusters.visible(asked, identity.roleSet);
    if (!cluster) throw notFound(`no Kubernetes cluster named ${asked}`);
    return { name: cluster.metadata.name, leafAsks: false };
  };

  server.post<NameParams>(
    apiPaths.patterns.kubeLogin,
    { config: { access: 'public' } },
    async (request): Promise<KubeLoginResponse> => {
      const identity = await certAuth.identify(request);
      const body = parseInput(kubeLoginRequestSchema, request.body ?? {});
      const { name, leafAsks } = await reachable(request.params.name, identity);
      const base = options.listenerUrl();
      if (!base) {
        throw badParameter(
          'this proxy takes no TLS for Kubernetes: its web port is plain HTTP, so set kube_addr',
        );
      }
      const required = SessionMfa.required(identity.roleSet) || leafAsks;
      const checked = required && body.totp_code !== undefined;
      const ca = await options.ca();
      const answer = {
        ca: ca.certPem,
        server: `${base}${kubePathPrefix}${encodeURIComponent(name)}`,
        tls_server_name: kubeServerName,
        session_mfa_required: required,
        session_mfa_verified: checked,
      };
      // Unchecked under per-session MFA, a certificate would open nothing: none is signed.
      if (required && !checked) {
        return { ...answer, expires: new Date(identity.expiresMs).toISOString() };
      }
      let checkedWith: string | undefined;
      if (checked) {
        const code = { totp_code: body.totp_code! };
        checkedWith = await options.sessionMfa.verify(
          identity.user,
          `kube ${name}`,
          code,
          undefined,
        );
      }
      const ttlMs = Math.min(
        checked ? sessionMfaCertTtlMs : loginCertTtlMs,
        identity.expiresMs - options.now(),
      );
      // The login's assumed access requests come along: their roles count while approved.
      const issued = await ca.userCertificate(identity.user, name, ttlMs, {
        accessRequests: identity.accessRequests,
        sessionMfaVerified: checked,
        mfaDevice: identity.mfaDevice,
        sessionMfaDevice: checkedWith,
        botInstance: identity.botInstance,
      });
      return {
        ...answer,
        cert: issued.certPem,
        key: issued.keyPem,
        expires: issued.notAfter.toISOString(),
      };
    },
  );
}
