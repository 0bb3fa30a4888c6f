import { listContext } from '../../http/resource-listers.js';
import { sessionMfaRefusal } from '../../identity/mfa/session-mfa.js';
import { TrustedProxies } from '../../net/proxy-protocol.js';
import type { Server } from 'node:https';
import { BackendSemaphore } from '../../backend/semaphore.js';
import type { AddressInfo } from 'node:net';
import { certificateCredential } from '../../access-control/access/credential-revocation.js';
import { lockMessage, marksOf } from '../../access-control/locks/lock-watcher.js';
import type { ServerContext } from '../../part.js';
import type { Wing } from '../wing.js';
import { agentKubeHeartbeats } from './agent-kube.js';
import { ExecAccess } from './exec/exec-access.js';
import { KubeExecSessions } from './exec/kube-exec-sessions.js';
import { kubeExecRoutes } from './exec/kube-exec.routes.js';
import { KubeApiProxy, type KubeCaller, type KubeIdentity } from './kube-api-proxy.js';
import { leafKubeRelay } from './leaf-kube-relay.js';
import { leafKubeServer } from './leaf-kube-server.js';
import { KubeCa, kubeServerName, type CertifiedKubeUser } from './kube-ca.js';
import { KubeClustersService } from './kube-clusters.service.js';
import { kubeConnectRoutes } from './kube-connect.routes.js';
import { KubeEndpoints } from './kube-endpoints.js';
import { checkKubeHealth } from './kube-health.js';
import { createKubeServer } from './kube-listener.js';
import { KubeRequestAudit } from './kube-request-audit.js';
import { KubeResourcesReader } from './kube-resources.service.js';
import { kubernetesRoutes } from './kubernetes.routes.js';

/**
 * Kubernetes: the stock kubectl (and anything built on client-go) through the proxy, with a
 * client certificate from `postern kube login`; requests authorized by the roles and forwarded
 * with the cluster's credential as the Kubernetes users and groups they allow (docs/kubernetes.md).
 */
export const kubernetesWing = {
  name: 'kubernetes',
  build: (ctx: ServerContext) => buildKubernetes(ctx),
  routes: async (server, s, ctx) => {
    await server.register(kubernetesRoutes, {
      clusters: s.kubeClusters,
      resources: s.kubeResources,
      ...listContext(ctx),
    });
    await server.register(kubeExecRoutes, {
      exec: s.kubeExec,
      access: s.kubeExecAccess,
      guard: ctx.guard,
      sessionMfa: ctx.identity.sessionMfa,
      clusterName: ctx.config.clusterName,
      pingIntervalMs: ctx.pingIntervalMs,
      resumes: ctx.terminalResumes.resumes,
      relayResume: ctx.terminalResumes.relayResume,
    });
    await server.register(kubeConnectRoutes, {
      clusters: s.kubeClusters,
      certAuth: ctx.identity.certAuth,
      ca: s.kubeCa,
      listenerUrl: () => kubeListenerUrl(ctx),
      clusterKube: ctx.clusterKube,
      sessionMfa: ctx.identity.sessionMfa,
      now: ctx.now,
    });
  },
  start: async (s) => {
    await s.kubeClusters.start();
    s.stopKubeHealth = checkKubeHealth(s.kubeClusters, s.kubeEndpointFor, s.kubeHealthIntervalMs);
  },
  close: async (s) => {
    s.stopKubeHealth?.();
    s.closeKubeServer();
    s.kubeEndpoints.close();
    await s.kubeRequestAudit.flush();
    await s.kubeClusters.close();
  },
  listeners: [
    {
      name: 'kube',
      enabled: (ctx) => ctx.config.kubeAddr !== undefined,
      start: async (s, ctx) => {
        const { server } = await s.kubeServer();
        const address = ctx.config.kubeAddr!;
        await listen(server, address.host, address.port);
        const bound = { host: address.host, port: (server.address() as AddressInfo).port };
        ctx.log('info', 'Kubernetes listener', bound);
        return { address: bound, stop: async () => s.closeKubeServer() };
      },
    },
  ],
  kinds: (s) => [
    {
      kind: 'kube_cluster',
      count: () => s.kubeClusters.count(),
      find: (name) => s.kubeClusters.find(name),
    },
  ],
} satisfies Wing<KubernetesServices>;

export type KubernetesServices = Awaited<ReturnType<typeof buildKubernetes>>;

function buildKubernetes(ctx: ServerContext) {
  const { backend, audit, now, config } = ctx;
  const kubeClusters = new KubeClustersService(backend, audit, {
    now,
    onError: ctx.onError('kubernetes'),
    configured: config.kubeClusters,
  });
  ctx.agentReports.add('kube', agentKubeHeartbeats(kubeClusters, config.heartbeatIntervalMs * 3));
  let ca: Promise<KubeCa> | undefined;
  const kubeCa = () => (ca ??= KubeCa.load(backend, config.clusterName, now));
  const kubeEndpoints = new KubeEndpoints((name) => ctx.tunnels.dial({ kind: 'kube', name }));
  const endpointFor = kubeEndpoints.endpointFor.bind(kubeEndpoints);
  const kubeRequestAudit = new KubeRequestAudit(audit);
  const identify = (cert: CertifiedKubeUser): KubeIdentity => {
    const { user } = cert;
    if (!ctx.access.users.get(user)) return { refused: 'this user no longer exists', code: 401 };
    const revoked = ctx.access.credentialRevoked(user, certificateCredential(cert.issuedAt));
    if (revoked) return { refused: `${revoked}: run postern login`, code: 401 };
    const resolved = ctx.access.resolve(user, [], cert.accessRequests);
    const lock = ctx.locks.lockFor({ user, roles: resolved.roles, ...marksOf(cert) });
    if (lock) return { refused: `locked: ${lockMessage(lock)}`, code: 403 };
    // A one-minute certificate from the credential plugin passed the check (kube-connect.routes).
    const checked = { ...resolved, mfaVerified: cert.sessionMfaVerified };
    const unchecked = sessionMfaRefusal(
      checked,
      'this kubectl context',
      kubeSessionMfaFix(cert.cluster, ctx.clusterKube.split(cert.cluster)),
    );
    if (unchecked) return { refused: unchecked, code: 403 };
    return { user, roleSet: resolved.roleSet, roles: resolved.roles };
  };
  const kubeExec = new KubeExecSessions({
    hub: ctx.hub,
    audit,
    clusterName: config.clusterName,
    now,
    streamLeases: new BackendSemaphore(ctx.backend, { prefix: '/semaphores/kubernetes/' }),
  });
  const guard = (caller: KubeCaller, revoke: (why: string) => void) =>
    ctx.hub.guard({
      recheck: () => {
        const now = caller.identify();
        return 'refused' in now ? now.refused : undefined;
      },
      revoke,
    });
  const proxy = new KubeApiProxy({
    clusters: kubeClusters,
    endpointFor,
    identify,
    audit: kubeRequestAudit,
    guard,
    // `prod.lab`: a trusted leaf's cluster, relayed to the leaf (leaf-kube.ts).
    leaf: leafKubeRelay({
      clusterKube: ctx.clusterKube,
      identify,
      traits: (cert) => ctx.access.resolve(cert.user, [], cert.accessRequests).traits,
      audit: kubeRequestAudit,
      guard,
    }),
    exec: (call, req, socket, head) =>
      void kubeExec
        .fromKubectl(call, { ...call.identity, recheck: () => call.recheck() }, req, socket, head)
        .catch(() => socket.destroy()),
    streamLease: async (call) => {
      const unwatched = kubeExec.unwatchedProblem(call.identity, 'port forwarding');
      if (unwatched) return { refused: unwatched };
      const limit = await kubeExec.leaseStream(call.identity);
      return 'refused' in limit
        ? limit
        : { release: () => limit.lease?.release() ?? Promise.resolve() };
    },
  });
  // A trusted root's users' kubectl requests, which its tunnel brings to this (leaf) cluster.
  ctx.clusterKube.attachLeaf(
    leafKubeServer({
      proxy,
      clusterName: config.clusterName,
      callers: ctx.identity.tunnelCallers,
      access: ctx.access,
      locks: ctx.locks,
    }),
  );
  // One TLS server for the Kubernetes listener, made the first time a connection needs it.
  let server: ReturnType<typeof createKubeServer> | undefined;
  const kubeServer = () =>
    (server ??= kubeCa().then((loaded) =>
      createKubeServer({
        ca: loaded,
        serverNames: [
          ...new Set([kubeServerName, ctx.addresses.publicAddr().host, 'localhost', '127.0.0.1']),
        ],
        proxy,
        draining: () => ctx.hub.draining,
        trustedProxies: new TrustedProxies(ctx.config.trustedProxies),
        renewalFailed: (error) =>
          ctx.log('warn', 'the Kubernetes listener could not renew its certificate; retrying', {
            reason: (error as Error).message,
          }),
      }),
    ));
  ctx.tlsRoutes.add({
    claims: (servername) => servername === kubeServerName,
    connection: (socket) => {
      kubeServer().then(
        (made) => made.take(socket),
        () => socket.destroy(),
      );
    },
  });
  return {
    kubeClusters,
    kubeCa,
    kubeEndpoints,
    kubeRequestAudit,
    kubeProxy: proxy,
    kubeResources: new KubeResourcesReader(endpointFor),
    kubeExec,
    kubeExecAccess: new ExecAccess({
      clusters: kubeClusters,
      endpointFor,
      access: ctx.access,
      locks: ctx.locks,
      audit: kubeRequestAudit,
    }),
    kubeServer,
    kubeEndpointFor: endpointFor,
    kubeHealthIntervalMs: config.heartbeatIntervalMs,
    stopKubeHealth: undefined as (() => void) | undefined,
    closeKubeServer: () =>
      void server?.then(
        (made) => made.close(),
        () => undefined,
      ),
  };
}

/** What a kubectl refused for want of a per-session MFA check should do. */
const kubeSessionMfaFix = (cluster: string, onLeaf?: { cluster: string; leaf: string }) => {
  const login = onLeaf ? `${onLeaf.cluster} --cluster ${onLeaf.leaf}` : cluster;
  return `run postern kube login ${login} again, and kubectl asks for your code through Postern`;
};

/** Where kubectl reaches the Kubernetes listener: its own port, or the web port over TLS. */
function kubeListenerUrl(ctx: ServerContext): string {
  if (ctx.config.kubeAddr) return `https://${ctx.addresses.publicEndpoint('kube')}`;
  return ctx.config.insecureNoTls ? '' : ctx.addresses.publicBaseUrl();
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
