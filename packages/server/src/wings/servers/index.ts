import { listContext } from '../../http/resource-listers.js';
import { FileTransferService } from './file-transfer/file-transfer.service.js';
import { fileTransferRoutes } from './file-transfer/file-transfer.routes.js';
import { AgentJoinService, hostCertificateTtlMs } from './join-tokens/agent-join.service.js';
import { joinTokensRoutes } from './join-tokens/join-tokens.routes.js';
import { JoinTokensService } from '../../modules/join-tokens/join-tokens.service.js';
import { JoinTokensStore } from '../../modules/join-tokens/join-tokens.store.js';
import { InventoryService } from './nodes/inventory.service.js';
import { agentNodeHeartbeats } from './nodes/agent-heartbeats.js';
import { nodesRoutes } from './nodes/nodes.routes.js';
import { tunnelRoutes } from '../../modules/tunnel/index.js';
import { PeerProofs } from '../../modules/sessions/peer-proof.js';
import { inventoryDirectory } from './terminal/inventory-directory.js';
import { NodeAccess } from './terminal/node-access.js';
import { NodeDialer } from './terminal/node-dialer.js';
import { openRateLimiter } from './terminal/open-rate.js';
import { terminalRoutes } from './terminal/terminal.routes.js';
import { sessionMfaCertRoutes } from './ssh-proxy/session-mfa-certs.routes.js';
import { TerminalService } from './terminal/terminal.service.js';
import type { ServerContext } from '../../part.js';
import type { Wing } from '../wing.js';
import { serversListeners } from './listeners.js';
import { buildAssist, registerAssistRoutes } from './assist/index.js';

/**
 * Servers over SSH: the node inventory, join tokens and agents' tunnels, the browser terminal,
 * file transfer, the SSH proxy listener and this host served as a server.
 */
export const serversWing = {
  name: 'servers',
  build: (ctx: ServerContext) => buildServers(ctx),
  routes: async (server, s, ctx) => {
    const { config, ca, tunnels, now, pingIntervalMs } = ctx;
    const clusterName = config.clusterName;
    await server.register(nodesRoutes, {
      inventory: s.inventory,
      ...listContext(ctx),
    });
    await server.register(joinTokensRoutes, {
      joinTokens: s.joinTokens,
      agentJoin: s.agentJoin,
      publicBaseUrl: () => ctx.addresses.publicBaseUrl(),
      rateLimit: ctx.loginRateLimit,
    });
    await server.register(tunnelRoutes, {
      registry: tunnels,
      hostCaPublicKeys: () => [ca.hostCaPublicKey],
      userCaPublicKeys: () => [ca.userCaPublicKey],
      heartbeats: ctx.agentReports,
      servedKinds: ctx.agentReports.kinds,
      renewHostCertificate: ({ nodeId, publicKey, principals }) =>
        ca.issueHostCertificate({
          publicKey,
          principals,
          hostId: nodeId,
          ttlMs: hostCertificateTtlMs,
        }),
      now,
      pingIntervalMs,
      heartbeatMs: s.inventory.heartbeatIntervalMs,
    });
    await server.register(fileTransferRoutes, {
      transfers: s.fileTransfers,
      clusterName,
      maxBytes: config.fileTransfer.maxBytes,
      sessionMfaGrants: ctx.identity.sessionMfaGrants,
      sessionMfa: ctx.identity.sessionMfa,
    });
    await server.register(sessionMfaCertRoutes, {
      certAuth: ctx.identity.certAuth,
      nodes: s.nodeDirectory,
      clusterName,
      recordRoles: (user) => ctx.access.users.get(user)?.spec.roles,
      sessionMfa: ctx.identity.sessionMfa,
      issuer: ctx.identity.issuer,
      leafOf: (host) => ctx.clusterSsh.leafOf(host),
      leafSessionMfaRequired: (leaf, caller, resource) =>
        ctx.clusterSsh.sessionMfaRequired(leaf, caller, resource),
    });
    await server.register(terminalRoutes, {
      terminals: s.terminals,
      guard: ctx.guard,
      sessionMfa: ctx.identity.sessionMfa,
      clusterName,
      pingIntervalMs,
      resumes: ctx.terminalResumes.resumes,
      relayResume: ctx.terminalResumes.relayResume,
      peerResume: ctx.terminalResumes.route,
      peers: {
        hub: ctx.hub,
        proofs: s.peerProofs,
        roleSetFor: (user, roles) => ctx.access.roleSetFor(user, roles),
        locks: ctx.locks,
      },
    });
    await registerAssistRoutes(server, s.assist, s.terminals, ctx);
  },
  start: (s) => s.inventory.start(),
  close: (s) => s.inventory.close(),
  listeners: serversListeners,
  kinds: (s) => [
    {
      kind: 'node',
      count: () => s.inventory.nodeCount(),
      find: (id) => {
        const node = s.inventory.get(id);
        return node && { id: node.metadata.name, labels: s.inventory.row(node).labels };
      },
    },
  ],
} satisfies Wing<ServersServices>;

export type ServersServices = ReturnType<typeof buildServers>;

function buildServers(ctx: ServerContext) {
  const { backend, audit, now, config, ca, tunnels, hub, locks, access } = ctx;
  const inventory = new InventoryService(backend, audit, {
    now,
    onError: ctx.onError('nodes'),
    heartbeatIntervalMs: config.heartbeatIntervalMs,
  });
  // Every agent serves its own node: its heartbeat's host fields are the node's.
  ctx.agentReports.add(
    'node',
    agentNodeHeartbeats((heartbeat) => inventory.heartbeat(heartbeat)),
  );
  const joinTokens = new JoinTokensService(new JoinTokensStore(backend), audit, now);
  const clusterName = config.clusterName;
  const agentJoin = new AgentJoinService({ tokens: joinTokens, inventory, ca, audit, clusterName });
  const dialer = new NodeDialer({
    ca,
    hostKeys: inventory,
    tunnels,
    keepaliveIntervalMs: config.ssh.keepaliveIntervalMs,
  });
  const nodeDirectory = inventoryDirectory(inventory);
  const nodeAccess = new NodeAccess({
    nodes: nodeDirectory,
    dialer,
    locks,
    now,
    openRate: openRateLimiter(config.sessionOpenLimit, now),
    subjects: access,
    auditHealth: ctx.auditHealth,
    drain: hub,
    roleNames: () => access.roleNames(),
  });
  // Joins of sessions another proxy holds, and that proxy's check of them (peer-proof.ts).
  const peerProofs = new PeerProofs({ backend, now });
  const terminals = new TerminalService({
    hub,
    access: nodeAccess,
    subjects: access,
    locks,
    audit,
    clusterName,
    now,
    peers: peerProofs,
    pingIntervalMs: ctx.pingIntervalMs,
  });
  const fileTransfers = new FileTransferService({
    access: nodeAccess,
    audit,
    maxBytes: config.fileTransfer.maxBytes,
    guards: hub,
    moderatedTransfers: {
      approvals: hub.approvedTransfers,
      isLive: (sessionId) =>
        hub.get(sessionId) !== undefined || hub.tracker(sessionId) !== undefined,
    },
    log: (error, message) => ctx.onError(`file transfer: ${message}`)(error),
  });
  const assist = buildAssist(ctx, inventory);
  return {
    inventory,
    joinTokens,
    agentJoin,
    nodeDirectory,
    terminals,
    fileTransfers,
    peerProofs,
    assist,
  };
}
