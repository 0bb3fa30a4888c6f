import { randomBytes, verify, type KeyObject } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import type { Clock } from '../../clock.js';
import {
  parseCertificate,
  verifyCertificate,
  type ParsedCertificate,
} from '../../ssh/certificates.js';
import { ED25519, ed25519PublicKeyObject, formatPublicKey } from '../../ssh/keys.js';
import { watchHostCertificate, type HostCertificateRequest } from './certificate-watch.js';
import {
  agentTunnelDraining,
  describeService,
  dialRefusedSchema,
  GOING_AWAY,
  helloSchema,
  leafTunnelId,
  helloVersionSchema,
  parseTextFrame,
  POLICY_VIOLATION,
  proofMessage,
  proofSchema,
  tunnelProtocolVersion,
  versionMismatch,
  type TunnelService,
} from './tunnel-protocol.js';
import type { ControlChannel, TunnelRegistry } from './tunnel-registry.js';
import { closeOnProtocolError } from '../../websocket/protocol-errors.js';

export interface ControlSocketOptions {
  registry: TunnelRegistry;
  /** The host CA keys an agent's certificate may be signed by (read per connection: rotation). */
  hostCaPublicKeys: () => string[];
  /** Sent to the agent once it is in, so its node service follows a user CA rotation. */
  userCaPublicKeys?: () => string[];
  /** What the agent's heartbeat frames mean: the wings serving its resources read and record them. */
  heartbeats: AgentHeartbeats;
  /** The kinds of service an agent may advertise; others are ignored, not trusted. */
  servedKinds: ReadonlySet<string>;
  /**
   * Signs a fresh host certificate for a connected agent once half of its current one's life is
   * gone, so an agent that runs for months never falls off. Without it agents must join again.
   */
  renewHostCertificate?: (request: HostCertificateRequest) => string;
  /**
   * Why a peer whose certificate checks out is still not let in (a leaf cluster the root no
   * longer trusts, or one that proves another key than it registered), or undefined.
   */
  admit?: (nodeId: string, certifiedKey: string) => string | undefined;
  now: Clock;
  pingIntervalMs: number;
  heartbeatMs?: number;
  authTimeoutMs: number;
  log: TunnelLog;
}

/**
 * Heartbeats an agent sends about what it serves. The tunnel only paces them and says why one
 * was refused; what a frame may contain, and where it is recorded, belongs to the wing.
 */
export interface AgentHeartbeats<H = unknown> {
  /** The frame as the heartbeat of the agent's proven node id, or which field is wrong. */
  read(
    nodeId: string,
    frame: Record<string, unknown>,
  ): { ok: true; value: H } | { ok: false; why: string };
  record(heartbeat: H): Promise<unknown>;
}

export interface TunnelLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * A heartbeat sooner than this after the previous one is dropped, so an agent cannot flood
 * storage: a second, or half the pace we ask for when that is shorter. Beats at the asked pace
 * arrive a few milliseconds early as often as late, so the floor must sit well below it.
 */
const heartbeatSpacingMs = (heartbeatMs: number | undefined) =>
  Math.min(1000, (heartbeatMs ?? 60_000) / 2);

/**
 * One agent's control socket: it proves its node id (a host certificate from the cluster host CA
 * naming the node, and a signature over our fresh challenge with the certified key), then it is
 * registered for dials and its heartbeats go to the inventory under the id it proved.
 */
export function serveControlSocket(socket: WebSocket, options: ControlSocketOptions): void {
  let stage: 'hello' | 'proof' | 'ready' | 'closed' = 'hello';
  let claimed:
    | { nodeId: string; key: KeyObject; cert: ParsedCertificate; services: TunnelService[] }
    | undefined;
  const challenge = randomBytes(32);
  let channel: ControlChannel | undefined;
  let stopCertificateWatch = () => {};
  let pingTimer: NodeJS.Timeout | undefined;
  let lastHeartbeatAt = 0;
  let heartbeatInFlight = false;
  const minHeartbeatSpacing = heartbeatSpacingMs(options.heartbeatMs);

  const send = (message: object) => socket.send(JSON.stringify(message));
  const refuse = (message: string) => {
    if (stage === 'closed') return;
    stage = 'closed';
    options.log.warn({ nodeId: claimed?.nodeId, reason: message }, 'agent tunnel refused');
    send({ type: 'error', message });
    socket.close(POLICY_VIOLATION, closeReason(message));
  };
  const authTimer = setTimeout(() => refuse('authentication timed out'), options.authTimeoutMs);

  socket.on('message', (data: RawData, isBinary: boolean) => {
    const frame = parseTextFrame(data, isBinary);
    if (stage === 'hello') onHello(frame);
    else if (stage === 'proof') onProof(frame);
    else if (stage === 'ready') onAgentMessage(frame);
  });
  socket.on('close', () => {
    stage = 'closed';
    clearTimeout(authTimer);
    stopCertificateWatch();
    clearInterval(pingTimer);
    if (channel) {
      options.registry.unregister(channel);
      options.log.info({ nodeId: channel.nodeId }, 'agent tunnel closed');
    }
  });
  closeOnProtocolError(socket);

  function onHello(frame: unknown): void {
    // A proxy about to stop takes no new agents: refused, the agent retries and (through a load
    // balancer that already saw /readyz fail) reaches another proxy.
    if (options.registry.draining) return refuse(agentTunnelDraining);
    // A hello without a version is protocol 1, what agents sent before they advertised services.
    const version = helloVersionSchema.safeParse(frame);
    const spoken = version.success ? (version.data.version ?? 1) : tunnelProtocolVersion;
    if (spoken !== tunnelProtocolVersion) return refuse(versionMismatch('agent', spoken));
    const hello = helloSchema.safeParse(frame);
    if (!hello.success)
      return refuse('expected {version, nodeId, hostCertificate, services} first');
    const { nodeId, hostCertificate } = hello.data;
    let key: KeyObject;
    let cert: ParsedCertificate;
    try {
      cert = parseCertificate(hostCertificate);
      const verdict = verifyCertificate(cert, {
        caPublicKeys: options.hostCaPublicKeys(),
        type: 'host',
        principal: nodeId,
        now: new Date(options.now()),
      });
      if (!verdict.ok) return refuse(`host certificate refused: ${verdict.reason}`);
      key = ed25519PublicKeyObject(cert.publicKeyBlob);
      const refusal = options.admit?.(nodeId, formatPublicKey(ED25519, cert.publicKeyBlob));
      if (refusal) return refuse(refusal);
    } catch (error) {
      return refuse(`host certificate refused: ${(error as Error).message}`);
    }
    const services = acceptedServices(nodeId, hello.data.services);
    if (typeof services === 'string') return refuse(services);
    claimed = { nodeId, key, cert, services };
    stage = 'proof';
    send({ challenge: challenge.toString('base64') });
  }

  function onProof(frame: unknown): void {
    const proof = proofSchema.safeParse(frame);
    if (!proof.success || !claimed) return refuse('expected {signature}');
    const signature = Buffer.from(proof.data.signature, 'base64');
    if (!signatureValid(claimed.key, proofMessage(claimed.nodeId, challenge), signature)) {
      return refuse('the signature does not match the host certificate');
    }
    clearTimeout(authTimer);
    stage = 'ready';
    const nodeId = claimed.nodeId;
    channel = {
      nodeId,
      services: claimed.services,
      requestDial: (id, service) => send({ type: 'dial', id, service }),
      announceProxies: (proxies) => send({ type: 'proxies', proxies }),
      announceDraining: () => send({ type: 'draining' }),
      close: (code, reason) => socket.close(code, closeReason(reason)),
    };
    const { proxyId } = options.registry;
    send({
      type: 'ready',
      version: tunnelProtocolVersion,
      pingIntervalMs: options.pingIntervalMs,
      ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
      ...(options.userCaPublicKeys ? { userCaKeys: options.userCaPublicKeys() } : {}),
      ...(proxyId ? { proxyId } : {}),
    });
    // After ready: registering sends the list of proxies, which the agent reads only once in.
    options.registry.register(channel);
    options.log.info(
      { nodeId, services: claimed.services.map(describeService) },
      'agent tunnel connected',
    );
    keepAlive();
    stopCertificateWatch = watchHostCertificate(claimed.cert, {
      nodeId,
      now: options.now,
      renew: options.renewHostCertificate,
      onRenewed: (hostCertificate) => {
        send({ type: 'certificate', hostCertificate });
        options.log.info({ nodeId }, 'renewed the host certificate of an agent');
      },
      onRenewFailed: (error) =>
        options.log.warn(
          { nodeId, err: error },
          'renewing the host certificate of an agent failed',
        ),
      onExpired: () => socket.close(GOING_AWAY, 'host certificate expired'),
    });
  }

  /**
   * The advertised services this proxy can vouch for, or why the hello is refused. A node service
   * must be the node the certificate proves, or an agent could take another node's sessions.
   */
  function acceptedServices(nodeId: string, advertised: TunnelService[]): TunnelService[] | string {
    const accepted: TunnelService[] = [];
    for (const service of advertised) {
      if (service.kind === 'node' && service.name !== nodeId) {
        return `an agent serves only its own node (${nodeId}), not node ${service.name}`;
      }
      if (service.kind === 'cluster' && leafTunnelId(service.name) !== nodeId) {
        return `a leaf cluster's tunnel serves only its own cluster, not ${service.name}`;
      }
      if (options.servedKinds.has(service.kind)) accepted.push(service);
      else options.log.warn({ nodeId, kind: service.kind }, 'ignored a service of an unknown kind');
    }
    return accepted;
  }

  function onAgentMessage(frame: unknown): void {
    const refused = dialRefusedSchema.safeParse(frame);
    if (refused.success && channel) {
      options.log.warn(
        { nodeId: channel.nodeId, reason: refused.data.message },
        'agent refused a tunnel connection',
      );
      return options.registry.refuse(channel, refused.data.id, refused.data.message);
    }
    const message = frame as Partial<Record<string, unknown>> | undefined;
    if (message?.type !== 'heartbeat' || !channel) return;
    const now = options.now();
    if (heartbeatInFlight || now - lastHeartbeatAt < minHeartbeatSpacing) return;
    const { nodeId } = channel;
    const heartbeat = options.heartbeats.read(nodeId, message);
    if (!heartbeat.ok) {
      const why = `heartbeat refused: ${heartbeat.why}`;
      options.log.warn({ nodeId }, why);
      return send({ type: 'error', message: why });
    }
    lastHeartbeatAt = now;
    heartbeatInFlight = true;
    options.heartbeats
      .record(heartbeat.value)
      .catch((error: unknown) => {
        options.log.warn({ nodeId, err: error }, 'recording an agent heartbeat failed');
        if (stage === 'ready') send({ type: 'error', message: 'heartbeat not recorded' });
      })
      .finally(() => {
        heartbeatInFlight = false;
      });
  }

  /** A ping per interval; a socket that has not answered the previous one is dead (a lost NAT entry, a crashed host). */
  function keepAlive(): void {
    let answered = true;
    socket.on('pong', () => {
      answered = true;
    });
    pingTimer = setInterval(() => {
      if (!answered) {
        options.log.warn({ nodeId: channel?.nodeId }, 'agent missed a ping; dropping its tunnel');
        return socket.terminate();
      }
      answered = false;
      socket.ping();
    }, options.pingIntervalMs);
  }
}

function signatureValid(key: KeyObject, message: Buffer, signature: Buffer): boolean {
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** Close reasons are limited to 123 bytes of UTF-8. */
export function closeReason(message: string): string {
  let reason = message;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}
