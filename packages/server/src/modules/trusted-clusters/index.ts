import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { agentPaths } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { formatHostPort } from '../../config/address.js';
import type { ServerContext } from '../../part.js';
import { serverVersion } from '../../version.js';
import { JoinTokensService } from '../join-tokens/join-tokens.service.js';
import { JoinTokensStore } from '../join-tokens/join-tokens.store.js';
import { clusterKey, type ClusterKey } from './cluster-keys.js';
import { LeafForwarder } from './leaf-forwarder.js';
import { LeafGrants, leafSessionHeaders } from './leaf-grants.js';
import { LeafChecks } from './leaf-checks.js';
import { relayLeafHop } from './leaf-hop.js';
import { leafSessionMfaRequired } from './leaf-mfa.js';
import type { LeafReach } from './leaf-reach.js';
import { LeafLinks } from './leaf-links.js';
import { LeafSessions } from './leaf-sessions.js';
import { dialLeafSsh, leafSshProtocol, serveLeafSsh } from './leaf-ssh.js';
import type { ClusterKube } from './cluster-kube.js';
import { rootWord } from './root-checks.js';
import { leafSessionRoutes } from './leaf-session.routes.js';
import { RemoteClusters } from './remote-clusters.js';
import { askRootToTrust } from './root-client.js';
import { leafCertificateTtlMs, RootTrustService } from './root-trust.service.js';
import { rootRoutes } from './root.routes.js';
import { trustedClustersRoutes } from './trusted-clusters.routes.js';
import { TrustedClustersService } from './trusted-clusters.service.js';
import { TrustedClustersStore } from './trusted-clusters.store.js';

/**
 * Connections a root opened through a leaf's tunnel, as the leaf's HTTP server sees them, and
 * the root whose tunnel carried each: only on these may a root ask for a leaf session.
 */
const fromRootTunnel = new WeakMap<Duplex, string>();

export interface TrustedClustersOptions {
  /** Accept a root whose TLS certificate nobody vouches for (POSTERN_INSECURE_TLS=1). */
  insecureRootTls?: boolean;
}

/**
 * Trusted clusters, both sides (docs/trusted-clusters.md): as a leaf, the resources that name
 * its roots and the tunnels it keeps to them; as a root, the validate call and the tunnels its
 * leaves open, and the leaves in its clusters list. One cluster may be both.
 */
export function buildTrustedClusters(ctx: ServerContext, options: TrustedClustersOptions = {}) {
  const { backend, audit, now, config, ca, tunnels } = ctx;
  const clusterName = config.clusterName;
  const heartbeatMs = config.heartbeatIntervalMs;
  const keys = new Map<string, Promise<ClusterKey>>();
  const keyFor = (purpose: 'tunnel' | 'forwarded_identity') => {
    if (!keys.has(purpose)) keys.set(purpose, clusterKey(backend, purpose));
    return keys.get(purpose)!;
  };
  const insecure = options.insecureRootTls ?? process.env.POSTERN_INSECURE_TLS === '1';
  const store = new TrustedClustersStore(backend);
  const remote = new RemoteClusters(backend, {
    registry: tunnels,
    now,
    heartbeatMs,
    onError: ctx.onError('remote clusters'),
  });
  const rootTrust = new RootTrustService({
    tokens: new JoinTokensService(new JoinTokensStore(backend), audit, now),
    remoteClusters: remote.store,
    issueHostCertificate: (request) => ca.issueHostCertificate(request),
    identityKey: () => keyFor('forwarded_identity'),
    audit,
    clusterName,
    now,
  });
  const leafSessions = new LeafSessions({
    trusted: store,
    users: ctx.identity.usersStore,
    sessions: ctx.identity.sessions,
    locks: ctx.locks,
    audit,
    clusterName,
    now,
  });
  const dialLeaf = (leaf: string) => tunnels.dial({ kind: 'cluster', name: leaf });
  const isLeaf = (name: string) => name !== clusterName && remote.get(name) !== undefined;
  const grants = new LeafGrants({
    rootName: clusterName,
    identityKey: () => keyFor('forwarded_identity'),
    dial: dialLeaf,
    now,
  });
  ctx.clusterSsh.attachRoot({
    leafOf: (host) => remote.leafUnder(host),
    hostSigners: () => remote.hostSigners(),
    dial: (leaf, user, target) =>
      dialLeafSsh(leaf, user, target, {
        rootName: clusterName,
        identityKey: () => keyFor('forwarded_identity'),
        dial: dialLeaf,
        now,
      }),
    sessionMfaRequired: (leaf, user, resource) =>
      leafSessionMfaRequired(leaf, user, resource, { grants, dial: dialLeaf }),
  });
  // How the wings reach a leaf's resources for the root's users (leaf-reach.ts).
  const reach: LeafReach = {
    isLeaf,
    passage: async (leaf, user) => {
      const grant = await grants.for(user, leaf);
      return {
        dial: () => dialLeaf(leaf),
        headers: leafSessionHeaders(grant),
        session: grant.session,
        drop: () => grants.drop(user, leaf),
      };
    },
    sessionMfaRequired: (leaf, user, resource) =>
      leafSessionMfaRequired(leaf, user, resource, { grants, dial: dialLeaf }),
    word: (leaf, user, subject) =>
      rootWord(
        { rootName: clusterName, identityKey: () => keyFor('forwarded_identity') },
        leaf,
        user,
        subject,
      ),
    hop: (client, tunnel, { leaf, kind, name, ...who }) =>
      relayLeafHop(
        client,
        tunnel,
        {
          ...who,
          codes: { start: 'TPOS062I', end: 'TPOS063I' },
          fields: { cluster: leaf, kind, name },
        },
        {
          locks: ctx.locks,
          audit,
          now,
          log: (message, fields) => ctx.log('warn', message, fields),
        },
      ),
  };
  ctx.leafReach.attach(reach);
  ctx.clusterKube.attachRoot({
    ...reach,
    split: (name) => {
      const dot = name.indexOf('.');
      const [cluster, leaf] = [name.slice(0, dot), name.slice(dot + 1)];
      return dot > 0 && isLeaf(leaf) ? { cluster, leaf } : undefined;
    },
  });
  const forwarder = new LeafForwarder({
    isLeaf,
    rootName: clusterName,
    grants,
    guard: ctx.guard,
    certAuth: ctx.identity.certAuth,
    dial: dialLeaf,
    audit,
    now,
    log: (message, fields) => ctx.log('warn', message, fields),
    checks: {
      sessionMfa: ctx.identity.sessionMfa,
      grants: ctx.identity.sessionMfaGrants,
      rootName: clusterName,
      identityKey: () => keyFor('forwarded_identity'),
    },
  });
  // A root's users here have no device: their checks are the root's (leaf-checks.ts).
  ctx.identity.sessionMfa.delegateRootUsers(
    new LeafChecks({
      users: ctx.identity.usersStore,
      trusted: store,
      clusterName,
      now,
      claimWord: (id, expires) =>
        backend.create({ key: `/root_mfa_words/${id}`, value: '1', expires }).then(
          () => true,
          () => false,
        ),
    }),
  );
  // Before Fastify routes them: calls about a leaf go to the leaf (leaf-forwarder.ts).
  ctx.hostRoutes.add(forwarder);
  let links: LeafLinks | undefined;
  const trustedClusters = new TrustedClustersService({
    store,
    audit,
    clusterName,
    askRoot: async (resource) =>
      askRootToTrust(
        resource,
        { name: clusterName, key: await keyFor('tunnel') },
        { insecure, now },
      ),
    status: (name) => links?.status(name),
  });
  return {
    trustedClusters,
    remoteClusters: remote,
    rootTrust,
    /** The leaf's tunnels serve this server's routes; made once the server exists. */
    startLinks(server: FastifyInstance): LeafLinks {
      links = new LeafLinks({
        backend,
        store,
        clusterName,
        key: () => keyFor('tunnel'),
        serve: serveThrough(
          server,
          (request, socket, head, root) =>
            serveLeafSsh(request, socket, head, root, {
              leafSessions,
              clusterSsh: ctx.clusterSsh,
              userCaKeys: (name) => links?.rootUserCaKeys(name),
              clusterName,
              log: (message, fields) => ctx.log('warn', message, fields),
            }),
          ctx.clusterKube,
        ),
        report: () => ({
          nodeCount: ctx.kinds().reduce((n, k) => (k.kind === 'node' ? n + k.count() : n), 0),
          publicURL: formatHostPort(ctx.addresses.publicAddr()),
          version: serverVersion,
          hostCaKeys: [ca.hostCaPublicKey],
        }),
        insecure,
        heartbeatMs,
        log: {
          info: (obj, msg) => ctx.log('info', msg, obj),
          warn: (obj, msg) => ctx.log('warn', msg, obj),
          error: (obj, msg) => ctx.log('warn', msg, obj),
        },
      });
      return links;
    },
    async routes(server: FastifyInstance) {
      await server.register(trustedClustersRoutes, { trustedClusters });
      await server.register(leafSessionRoutes, {
        leafSessions,
        rootOf: (request) => fromRootTunnel.get(request.raw.socket),
      });
      await server.register(rootRoutes, {
        rootTrust,
        registry: tunnels,
        hostCaPublicKeys: () => [ca.hostCaPublicKey],
        userCaPublicKeys: () => [ca.userCaPublicKey],
        admit: (nodeId, key) => remote.admit(nodeId, key),
        heartbeats: remote,
        renewHostCertificate: ({ nodeId, publicKey, principals }) =>
          ca.issueHostCertificate({
            publicKey,
            principals,
            hostId: nodeId,
            ttlMs: leafCertificateTtlMs,
          }),
        now,
        pingIntervalMs: ctx.pingIntervalMs,
        heartbeatMs,
        rateLimit: ctx.loginRateLimit,
      });
    },
    async start(server: FastifyInstance) {
      await remote.start();
      await this.startLinks(server).start();
    },
    async close() {
      forwarder.close();
      await links?.close();
      await remote.close();
    },
  };
}
export type TrustedClusters = ReturnType<typeof buildTrustedClusters>;

/**
 * Each connection a root opens through the tunnel is plain HTTP/1.1 to this server's own
 * routes (the tunnel is the TLS): requests go to Fastify's router, upgrades to the web server's
 * 'upgrade' handling, as if they had come to the web port. An upgrade to SSH (leaf-ssh.ts) and
 * kubectl's requests (`leafKube`, cluster-kube.ts) exist only here, so only a root's tunnel can
 * ask for them.
 */
function serveThrough(
  server: FastifyInstance,
  ssh: (request: IncomingMessage, socket: Duplex, head: Buffer, root: string) => Promise<void>,
  kube: ClusterKube,
): (stream: Duplex, root: string) => void {
  const isKube = (req: IncomingMessage) => req.url?.startsWith(`${agentPaths.leafKube}/`) === true;
  const http = createServer((req, res) => {
    const root = fromRootTunnel.get(req.socket);
    const leafSide = kube.leafSide;
    if (root && leafSide && isKube(req)) return leafSide.request(req, res, root);
    server.routing(req, res);
  });
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const root = fromRootTunnel.get(socket);
    const leafSide = kube.leafSide;
    if (root && leafSide && isKube(req)) return leafSide.upgrade(req, socket, head, root);
    const wantsSsh = req.url === agentPaths.leafSsh && req.headers.upgrade === leafSshProtocol;
    if (!wantsSsh || !root) return void server.server.emit('upgrade', req, socket, head);
    ssh(req, socket, head, root).catch(() => socket.destroy());
  });
  return (stream, root) => {
    fromRootTunnel.set(stream, root);
    http.emit('connection', stream);
  };
}
