import type {} from '@fastify/websocket';
import { agentPaths, trustedClusterValidateRequestSchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { parseInput } from '../../http/parse-input.js';
import type { HostCertificateRequest } from '../tunnel/certificate-watch.js';
import { serveControlSocket, type AgentHeartbeats } from '../tunnel/control-socket.js';
import { authTimeoutMs } from '../tunnel/tunnel-protocol.js';
import type { TunnelRegistry } from '../tunnel/tunnel-registry.js';
import type { RootTrustService } from './root-trust.service.js';

export interface RootRoutesOptions {
  rootTrust: RootTrustService;
  registry: TunnelRegistry;
  hostCaPublicKeys: () => string[];
  /** Told to a leaf when its tunnel is up: it checks the certificates of root users who ssh in. */
  userCaPublicKeys: () => string[];
  /** Only leaves the root trusts now, with the key they registered (remote-clusters.ts). */
  admit: (nodeId: string, certifiedKey: string) => string | undefined;
  /** What a leaf's heartbeats mean here: when it was last heard (remote-cluster-beats.ts). */
  heartbeats: AgentHeartbeats;
  renewHostCertificate: (request: HostCertificateRequest) => string;
  now: Clock;
  pingIntervalMs: number;
  heartbeatMs: number;
  rateLimit: { max: number; timeWindow: number };
}

const clusterOnly: ReadonlySet<string> = new Set(['cluster']);

/**
 * The root's routes for its leaves: the validate call a trusted cluster's creation makes, and
 * the leaf's tunnel. Both are outside the web API and public like the agents' (a leaf is no web
 * user): the token, then the certified key and a signed challenge, are the proof.
 */
export async function rootRoutes(app: FastifyInstance, options: RootRoutesOptions) {
  app.post(
    agentPaths.trustedClusterValidate,
    { config: { access: 'public', rateLimit: options.rateLimit } },
    async (request) => {
      const body = parseInput(trustedClusterValidateRequestSchema, request.body);
      return options.rootTrust.validate(body, request.ip);
    },
  );

  // The agents' control socket, with a leaf's rules: it serves only `cluster` (itself, by the
  // principal its certificate names), and its heartbeats say when it was last heard.
  app.get(
    agentPaths.trustedClusterTunnel,
    { websocket: true, config: { access: 'public' } },
    (socket, request) =>
      serveControlSocket(socket, {
        registry: options.registry,
        hostCaPublicKeys: options.hostCaPublicKeys,
        userCaPublicKeys: options.userCaPublicKeys,
        admit: options.admit,
        heartbeats: options.heartbeats,
        servedKinds: clusterOnly,
        renewHostCertificate: options.renewHostCertificate,
        now: options.now,
        pingIntervalMs: options.pingIntervalMs,
        heartbeatMs: options.heartbeatMs,
        authTimeoutMs,
        log: request.log.child({ remoteAddr: request.ip, leafTunnel: true }),
      }),
  );
}
