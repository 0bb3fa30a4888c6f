import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/config.js';
import type { GuardDeps } from '../../plugins/access-guard.js';
import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { AgentJoinService, hostCertificateTtlMs } from './join-tokens/agent-join.service.js';
import { joinTokensRoutes } from './join-tokens/join-tokens.routes.js';
import { JoinTokensService } from './join-tokens/join-tokens.service.js';
import { JoinTokensStore } from './join-tokens/join-tokens.store.js';
import type { LockWatcher } from '../../access-control/locks/lock-watcher.js';
import { InventoryService } from './nodes/inventory.service.js';
import { nodesRoutes } from './nodes/nodes.routes.js';
import { activeSessionsRoutes } from '../../modules/sessions/active-sessions.routes.js';
import { DirRecordingStore } from '../../modules/recordings/recording-store.js';
import { recordingsRoutes } from '../../modules/recordings/recordings.routes.js';
import { SessionHub } from '../../modules/sessions/session-hub.js';
import { inventoryDirectory } from './terminal/inventory-directory.js';
import { fileTransferRoutes } from './file-transfer/file-transfer.routes.js';
import { FileTransferService } from './file-transfer/file-transfer.service.js';
import { NodeAccess } from './terminal/node-access.js';
import { NodeDialer } from './terminal/node-dialer.js';
import { terminalRoutes } from './terminal/terminal.routes.js';
import { OpenRateLimiter } from './terminal/open-rate.js';
import { TerminalService } from './terminal/terminal.service.js';
import { TunnelRegistry, tunnelRoutes } from '../../modules/tunnel/index.js';
import { ClusterCa } from '../../ssh/ca.service.js';
import type { AuditHealth } from '../../modules/audit/spool/index.js';

export interface ServerAccessDeps {
  config: Config;
  backend: Backend;
  audit: AuditStore;
  now: Clock;
  locks: LockWatcher;
  /** The watched users and roles: live sessions are judged again against them. */
  access?: Pick<AccessResolver, 'current' | 'onChange'>;
  /** Whether the audit log can take new sessions' events; absent, it always can. */
  auditHealth?: AuditHealth;
  ca?: ClusterCa;
  onError: (what: string) => (error: unknown) => void;
  /** Terminal and tunnel keepalive pings; tests shorten it. */
  pingIntervalMs?: number;
}

/**
 * The services of reaching servers: the cluster CAs, the inventory, join tokens, agent
 * tunnels, the session hub and the terminal. Watched state (inventory, live sessions) is started
 * here and stopped by `close`.
 */
export async function buildServerAccess(deps: ServerAccessDeps) {
  const { backend, audit, now, config } = deps;
  const ca = deps.ca ?? (await ClusterCa.loadOrCreate(backend, config.clusterName));
  const inventory = new InventoryService(backend, audit, {
    now,
    onError: deps.onError('nodes'),
    heartbeatIntervalMs: config.heartbeatIntervalMs,
  });
  const joinTokens = new JoinTokensService(new JoinTokensStore(backend), audit, now);
  const clusterName = config.clusterName;
  const agentJoin = new AgentJoinService({ tokens: joinTokens, inventory, ca, audit, clusterName });
  const tunnels = new TunnelRegistry();
  const recordings = new DirRecordingStore(config.recordings.dir);
  const hub = new SessionHub({
    backend,
    audit,
    locks: deps.locks,
    now,
    onError: deps.onError('live sessions'),
    recordings: {
      store: recordings,
      onFailure: config.recordings.onFailure,
    },
    ...(deps.access ? { accessChanges: deps.access.onChange.bind(deps.access) } : {}),
  });
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
    locks: deps.locks,
    now,
    openRate: new OpenRateLimiter(config.sessionOpenLimit, now),
    ...(deps.access ? { subjects: deps.access } : {}),
    auditHealth: deps.auditHealth,
  });
  const terminals = new TerminalService({
    hub,
    access: nodeAccess,
    ...(deps.access ? { subjects: deps.access } : {}),
    locks: deps.locks,
    audit,
    clusterName,
    now,
  });
  const fileTransfers = new FileTransferService({
    access: nodeAccess,
    audit,
    maxBytes: config.fileTransfer.maxBytes,
    guards: hub,
    log: (error, message) => deps.onError(`file transfer: ${message}`)(error),
  });
  return {
    ca,
    inventory,
    joinTokens,
    agentJoin,
    tunnels,
    hub,
    nodeDirectory,
    terminals,
    fileTransfers,
    recordings,
    audit,
    start: () => Promise.all([inventory.start(), hub.start()]),
    close: async () => {
      tunnels.close();
      await hub.close();
      await inventory.close();
    },
  };
}

export type ServerAccessServices = Awaited<ReturnType<typeof buildServerAccess>>;

/** Registers the routes of servers, tokens, agents, live sessions and the terminal. */
export async function registerServerAccessRoutes(
  server: FastifyInstance,
  services: ServerAccessServices,
  options: {
    config: Config;
    guard: Pick<GuardDeps, 'sessions' | 'access'>;
    rateLimit: { max: number; timeWindow: number };
    now: Clock;
    pingIntervalMs?: number;
  },
) {
  const { config, now } = options;
  const { ca, inventory, joinTokens, agentJoin, tunnels, hub, terminals, recordings, audit } =
    services;
  const { fileTransfers } = services;
  const clusterName = config.clusterName;
  const pingIntervalMs = options.pingIntervalMs ?? 20_000;
  // Frames are small (keystrokes, acks); a large one before authentication is an attack.
  await server.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  await server.register(nodesRoutes, { inventory, clusterName });
  await server.register(joinTokensRoutes, {
    joinTokens,
    agentJoin,
    config,
    rateLimit: options.rateLimit,
  });
  await server.register(tunnelRoutes, {
    registry: tunnels,
    hostCaPublicKeys: () => [ca.hostCaPublicKey],
    userCaPublicKeys: () => [ca.userCaPublicKey],
    onHeartbeat: (heartbeat) => inventory.heartbeat(heartbeat),
    renewHostCertificate: ({ nodeId, publicKey, principals }) =>
      ca.issueHostCertificate({
        publicKey,
        principals,
        hostId: nodeId,
        ttlMs: hostCertificateTtlMs,
      }),
    now,
    pingIntervalMs,
    heartbeatMs: inventory.heartbeatIntervalMs,
  });
  await server.register(activeSessionsRoutes, { hub, clusterName });
  await server.register(recordingsRoutes, { store: recordings, audit, clusterName });
  await server.register(fileTransferRoutes, {
    transfers: fileTransfers,
    clusterName,
    maxBytes: config.fileTransfer.maxBytes,
  });
  await server.register(terminalRoutes, {
    terminals,
    guard: options.guard,
    clusterName,
    pingIntervalMs,
  });
}
