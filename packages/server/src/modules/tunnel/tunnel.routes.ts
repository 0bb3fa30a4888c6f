import type {} from '@fastify/websocket';
import { agentPaths } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../../clock.js';
import type { HostCertificateRequest } from './certificate-watch.js';
import { serveControlSocket, type AgentHeartbeats } from './control-socket.js';
import { serveDataSocket } from './data-socket.js';
import { authTimeoutMs, proxyPingIntervalMs } from './tunnel-protocol.js';
import type { TunnelRegistry } from './tunnel-registry.js';

const nodeOnly: ReadonlySet<string> = new Set(['node']);

export interface TunnelRoutesOptions {
  registry: TunnelRegistry;
  /** The cluster host CA keys agents' host certificates must be signed by. */
  hostCaPublicKeys: () => string[];
  /** The user CA keys agents' node services trust, refreshed on every connection. */
  userCaPublicKeys?: () => string[];
  /** Records a heartbeat (the inventory); its id is the proven node id, `tunnel` is true. */
  heartbeats: AgentHeartbeats;
  /** The kinds of service agents may advertise (default: their node only). */
  servedKinds?: ReadonlySet<string>;
  /** Signs renewed host certificates for connected agents (the cluster host CA). */
  renewHostCertificate?: (request: HostCertificateRequest) => string;
  now?: Clock;
  pingIntervalMs?: number;
  /** Told to agents on connect: the inventory's heartbeat interval. */
  heartbeatMs?: number;
  authTimeoutMs?: number;
}

/**
 * The agents' reverse tunnel (docs/agents.md). Both upgrades are public, like the terminal's:
 * agents are not web users, they prove themselves in-band (a host certificate and a signed
 * challenge on the control socket; a single-use dial id on data sockets). Needs
 * @fastify/websocket registered first.
 */
export async function tunnelRoutes(app: FastifyInstance, options: TunnelRoutesOptions) {
  const timeoutMs = options.authTimeoutMs ?? authTimeoutMs;
  app.get(agentPaths.tunnel, { websocket: true, config: { access: 'public' } }, (socket, request) =>
    serveControlSocket(socket, {
      registry: options.registry,
      hostCaPublicKeys: options.hostCaPublicKeys,
      userCaPublicKeys: options.userCaPublicKeys,
      heartbeats: options.heartbeats,
      servedKinds: options.servedKinds ?? nodeOnly,
      renewHostCertificate: options.renewHostCertificate,
      now: options.now ?? systemClock,
      pingIntervalMs: options.pingIntervalMs ?? proxyPingIntervalMs,
      heartbeatMs: options.heartbeatMs,
      authTimeoutMs: timeoutMs,
      log: request.log.child({ remoteAddr: request.ip }),
    }),
  );

  app.get<{ Params: { connectionId: string } }>(
    agentPaths.patterns.dial,
    {
      websocket: true,
      config: { access: 'public' },
      // One request per SSH connection, and its path holds a (single-use) dial id: keep both
      // out of the info-level request log.
      logLevel: 'warn',
    },
    (socket, request) =>
      serveDataSocket(socket, request.params.connectionId, options.registry, timeoutMs),
  );
}
