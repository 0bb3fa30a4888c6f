import { sign, type KeyObject } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { agentPaths } from '@postern/contracts';
import { createWebSocketStream, WebSocket, type RawData } from 'ws';
import {
  agentTunnelDraining,
  challengeSchema,
  describeService,
  parseTextFrame,
  proofMessage,
  proxyMessageSchema,
  proxyPingIntervalMs,
  serviceKey,
  tunnelProtocolVersion,
  versionMismatch,
  type AgentHeartbeat,
  type ProxyAddress,
  type TunnelService,
} from '../modules/tunnel/tunnel-protocol.js';
import { Backoff } from './backoff.js';
import { websocketUrl } from './proxy-address.js';

export interface AgentLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A service this agent advertises, and what takes each connection the proxy opens to it. */
export interface LocalService {
  service: TunnelService;
  handle(stream: Duplex): void;
}

export interface TunnelClientOptions {
  base: URL;
  /** The control socket's path: agents' by default, a leaf cluster's (trusted-clusters) apart. */
  controlPath?: string;
  /** Accept a proxy certificate nobody vouches for (a self-signed proxy). */
  insecure: boolean;
  nodeId: string;
  /** The current host certificate (it changes when the proxy renews it). */
  hostCertificate: () => string;
  hostKey: KeyObject;
  /** What the next heartbeat says; called for each one. */
  heartbeat: () => Omit<AgentHeartbeat, 'type'>;
  heartbeatMs: number;
  /** What this agent serves (advertised in its hello); today its node service. */
  services: LocalService[];
  /** The proxy let us in; it may name the user CA keys in force now, and its own proxy id. */
  onReady: (userCaKeys: string[] | undefined, proxyId: string | undefined) => void;
  /** The proxy told us every proxy of the cluster (on connect and whenever it changes). */
  onProxies?: (proxies: ProxyAddress[]) => void;
  /** The proxy sent a renewed host certificate. */
  onCertificate: (hostCertificate: string) => void;
  log: AgentLog;
  backoff?: Backoff;
}

/** The proxy must answer the hello within this, or the attempt counts as failed. */
const handshakeTimeoutMs = 15_000;
/** Missing this many of the proxy's pings in a row means the connection is dead. */
const missedPingsAllowed = 2.5;

/**
 * The agent's end of the reverse tunnel: one control socket to the proxy, kept open for as long
 * as the agent runs. It proves the node's identity, sends heartbeats, and opens a data socket
 * for each connection the proxy asks for. Whenever it drops it comes back, after a growing,
 * jittered delay that starts over once the proxy has let it in again.
 */
/** How soon to connect again after a draining proxy's tunnel closed: long enough not to spin. */
const drainingRetryMs = 250;

export class TunnelClient {
  private socket: WebSocket | undefined;
  private readonly dataSockets = new Set<WebSocket>();
  private readonly backoff: Backoff;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private ready = false;
  private stopped = false;
  private currentProxyId: string | undefined;
  /** The proxy said it stops soon (or refused us for that): reconnect quickly, not with backoff. */
  private proxyDraining = false;
  private readonly handlers: Map<string, LocalService>;

  constructor(private readonly options: TunnelClientOptions) {
    this.backoff = options.backoff ?? new Backoff();
    this.handlers = new Map(options.services.map((local) => [serviceKey(local.service), local]));
  }

  /** Whether the proxy has let this agent in on the current control socket. */
  get connected(): boolean {
    return this.ready;
  }

  /** The id the proxy gave in its ready frame (the last one, while reconnecting). */
  get proxyId(): string | undefined {
    return this.currentProxyId;
  }

  /** The proxy this tunnel dials (its origin). */
  get proxy(): string {
    return this.options.base.origin;
  }

  start(): void {
    this.connect();
  }

  /**
   * Closes the control socket and stops reconnecting, but lets open connections end on their
   * own: a proxy that left the list may still carry sessions.
   */
  retire(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    return this.socket ? closeAndWait(this.socket) : Promise.resolve();
  }

  /** Closes the control socket and every open connection; no reconnect follows. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const sockets = [...this.dataSockets, ...(this.socket ? [this.socket] : [])];
    await Promise.all(sockets.map((socket) => closeAndWait(socket)));
  }

  private connect(): void {
    const { options } = this;
    const socket = new WebSocket(
      websocketUrl(options.base, options.controlPath ?? agentPaths.tunnel),
      {
        rejectUnauthorized: !options.insecure,
        handshakeTimeout: handshakeTimeoutMs,
      },
    );
    this.socket = socket;
    let stage: 'challenge' | 'ready' | 'in' = 'challenge';
    let heartbeatTimer: NodeJS.Timeout | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    let pingIntervalMs = proxyPingIntervalMs;
    const abandon = (why: string) => {
      options.log.warn({ proxy: options.base.origin }, `tunnel: ${why}`);
      socket.terminate();
    };
    const handshakeTimer = setTimeout(
      () => abandon('the proxy did not finish the handshake'),
      handshakeTimeoutMs,
    );
    // The proxy pings on a fixed interval; silence well past it is a connection that died quietly.
    const feedWatchdog = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(
        () => abandon('no ping from the proxy; reconnecting'),
        pingIntervalMs * missedPingsAllowed,
      );
    };
    const sendHeartbeat = () => {
      const heartbeat: AgentHeartbeat = { type: 'heartbeat', ...options.heartbeat() };
      socket.send(JSON.stringify(heartbeat));
    };

    socket.on('open', () => {
      const hello = {
        version: tunnelProtocolVersion,
        nodeId: options.nodeId,
        hostCertificate: options.hostCertificate(),
        services: options.services.map((local) => local.service),
      };
      socket.send(JSON.stringify(hello));
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const frame = parseTextFrame(data, isBinary);
      const challenge = stage === 'challenge' ? challengeSchema.safeParse(frame) : undefined;
      if (challenge?.success) {
        const bytes = Buffer.from(challenge.data.challenge, 'base64');
        if (bytes.length !== 32) return abandon('the proxy sent a malformed challenge');
        const signature = sign(null, proofMessage(options.nodeId, bytes), options.hostKey);
        socket.send(JSON.stringify({ signature: signature.toString('base64') }));
        stage = 'ready';
        return;
      }
      const message = proxyMessageSchema.safeParse(frame);
      if (!message.success) {
        // Later, something newer than this agent: ignore it. Before we are in, a broken handshake.
        if (stage !== 'in') abandon('the proxy broke the tunnel handshake');
        return;
      }
      const { data: msg } = message;
      if (msg.type === 'error') {
        // Before we are in, an error is the proxy's refusal (it closes the socket next).
        const proxy = options.base.origin;
        if (stage === 'in') options.log.warn({ proxy }, `the proxy says: ${msg.message}`);
        else if (msg.message === agentTunnelDraining) {
          // Not a refusal of this agent: try again soon, another proxy will take it.
          options.log.info({ proxy }, 'the proxy is shutting down; connecting again');
          this.proxyDraining = true;
        } else options.log.error({ proxy }, `the proxy refused this agent: ${msg.message}`);
      } else if (stage === 'in' && msg.type === 'draining') {
        // Live connections go on; when this tunnel closes, come back at once (elsewhere).
        options.log.info({ proxy: options.base.origin }, 'the proxy is shutting down');
        this.proxyDraining = true;
      } else if (stage === 'ready' && msg.type === 'ready') {
        // A proxy of protocol 1 would dial without naming a service: we cannot serve it. Leaving
        // keeps the backoff growing, since only a proxy that lets us in resets it.
        const spoken = msg.version ?? 1;
        if (spoken !== tunnelProtocolVersion) {
          options.log.error(
            { proxy: options.base.origin },
            `cannot use this proxy: ${versionMismatch('proxy', spoken)}`,
          );
          return socket.close(1000, 'unsupported tunnel protocol');
        }
        stage = 'in';
        clearTimeout(handshakeTimer);
        this.ready = true;
        this.backoff.reset();
        pingIntervalMs = msg.pingIntervalMs ?? proxyPingIntervalMs;
        feedWatchdog();
        this.currentProxyId = msg.proxyId;
        options.onReady(msg.userCaKeys, msg.proxyId);
        options.log.info(
          { proxy: options.base.origin, nodeId: options.nodeId },
          'tunnel to the proxy is up',
        );
        sendHeartbeat();
        heartbeatTimer = setInterval(sendHeartbeat, msg.heartbeatMs ?? options.heartbeatMs);
      } else if (stage === 'in' && msg.type === 'dial') {
        const local = this.handlers.get(serviceKey(msg.service));
        if (local) return this.openDataSocket(msg.id, local);
        const why = `this agent does not serve ${describeService(msg.service)}`;
        options.log.warn({ proxy: options.base.origin }, `refused a connection: ${why}`);
        socket.send(JSON.stringify({ type: 'dialRefused', id: msg.id, message: why }));
      } else if (stage === 'in' && msg.type === 'certificate') {
        options.onCertificate(msg.hostCertificate);
      } else if (stage === 'in' && msg.type === 'proxies') {
        options.onProxies?.(msg.proxies);
      }
    });
    socket.on('ping', feedWatchdog);
    socket.on('error', (error) => {
      options.log.warn(
        { proxy: options.base.origin, err: error.message },
        'tunnel connection error',
      );
    });
    socket.on('close', (code: number, reason: Buffer) => {
      clearTimeout(handshakeTimer);
      clearTimeout(watchdog);
      clearInterval(heartbeatTimer);
      this.ready = false;
      if (this.socket === socket) this.socket = undefined;
      if (this.stopped) return;
      // A draining proxy: a quick retry (through a load balancer, a proxy that stays up answers).
      const retryInMs = this.proxyDraining ? drainingRetryMs : this.backoff.next();
      this.proxyDraining = false;
      options.log.warn(
        { proxy: options.base.origin, code, reason: reason.toString(), retryInMs },
        'tunnel to the proxy closed; reconnecting',
      );
      this.reconnectTimer = setTimeout(() => this.connect(), retryInMs);
    });
  }

  /** A connection the proxy asked for: a data socket that names it, then the service's bytes. */
  private openDataSocket(id: string, local: LocalService): void {
    const { options } = this;
    const socket = new WebSocket(websocketUrl(options.base, agentPaths.dial(id)), {
      rejectUnauthorized: !options.insecure,
      handshakeTimeout: handshakeTimeoutMs,
    });
    this.dataSockets.add(socket);
    socket.on('close', () => this.dataSockets.delete(socket));
    socket.on('error', (error) => {
      options.log.warn({ err: error.message }, 'tunnel connection for a session failed');
    });
    socket.once('open', () => {
      socket.send(JSON.stringify({ id }));
      local.handle(createWebSocketStream(socket));
    });
  }
}

function closeAndWait(socket: WebSocket): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const giveUp = setTimeout(() => socket.terminate(), 2000);
    socket.once('close', () => {
      clearTimeout(giveUp);
      resolve();
    });
    if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
    else socket.close(1001, 'the agent is stopping');
  });
}
