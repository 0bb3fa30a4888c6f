import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import {
  describeService,
  dialTimeoutMs,
  GOING_AWAY,
  POLICY_VIOLATION,
  serviceKey,
  type ProxyAddress,
  type TunnelService,
} from './tunnel-protocol.js';

/**
 * Opens a byte stream to a service an agent advertised on its reverse tunnel; for a tunnel
 * node's SSH service, `{kind: 'node', name: <node id>}`.
 */
export interface TunnelDialer {
  dial(service: { kind: string; name: string }): Promise<Duplex>;
}

/** An authenticated agent's control socket, as the registry sees it. */
export interface ControlChannel {
  /** The node id the agent proved: its identity, whatever it serves. */
  readonly nodeId: string;
  /** What the agent advertised and the proxy accepted. */
  readonly services: readonly TunnelService[];
  /** Asks the agent to open a data socket for connection `id` to `service`. */
  requestDial(id: string, service: TunnelService): void;
  /** Tells the agent every proxy of the cluster, so it keeps a tunnel to each. */
  announceProxies?(proxies: ProxyAddress[]): void;
  /** Tells the agent this proxy stops soon, so it reconnects elsewhere without waiting. */
  announceDraining?(): void;
  close(code: number, reason: string): void;
}

interface PendingDial {
  channel: ControlChannel;
  service: TunnelService;
  resolve(stream: Duplex): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The agents connected to this proxy, by node id, the services they advertised, and the
 * connections being opened through them. A dial names a service `{kind, name}` and goes to the
 * latest agent advertising it, as a single-use random id sent down the control socket; the agent
 * answers by opening a data socket that names it (or by refusing it). Only this process knows its
 * agents; agents keep a tunnel to every proxy of the list it is told (setProxies, docs/agents.md).
 */
export class TunnelRegistry implements TunnelDialer {
  private readonly channels = new Map<string, ControlChannel>();
  /** Service key → the channels advertising it, oldest first (several agents may serve one app). */
  private readonly providers = new Map<string, ControlChannel[]>();
  private readonly pending = new Map<string, PendingDial>();
  private closed = false;
  /** True once the proxy drains before it stops: no new tunnels. */
  draining = false;
  /** The cluster's proxies as last known (ProxyRegistry); undefined until first told. */
  private proxyList: ProxyAddress[] | undefined;

  constructor(private readonly options: { dialTimeoutMs?: number; proxyId?: string } = {}) {}

  /** This proxy's id in the cluster's list of proxies, told to agents in the ready frame. */
  get proxyId(): string | undefined {
    return this.options.proxyId;
  }

  /** A new list of proxies: every connected agent is told, and so is each that connects later. */
  setProxies(proxies: ProxyAddress[]): void {
    this.proxyList = proxies;
    for (const channel of this.channels.values()) channel.announceProxies?.(proxies);
  }

  /**
   * This proxy stops soon (SIGTERM): every connected agent is told, and new tunnels are refused
   * (`draining`), so agents reconnect to the other proxies while the live connections go on.
   */
  drain(): void {
    if (this.draining) return;
    this.draining = true;
    for (const channel of this.channels.values()) channel.announceDraining?.();
  }

  /** How many agents are connected to this proxy now. */
  count(): number {
    return this.channels.size;
  }

  connected(nodeId: string): boolean {
    return this.channels.has(nodeId);
  }

  /** Adds an authenticated channel; an agent that reconnects replaces its older channel. */
  register(channel: ControlChannel): void {
    if (this.closed) return channel.close(GOING_AWAY, 'the proxy is shutting down');
    const older = this.channels.get(channel.nodeId);
    this.channels.set(channel.nodeId, channel);
    for (const service of channel.services) {
      const key = serviceKey(service);
      this.providers.set(key, [...(this.providers.get(key) ?? []), channel]);
    }
    if (older && older !== channel) {
      this.forget(older);
      this.failDialsOf(older, 'the agent reconnected');
      older.close(GOING_AWAY, 'replaced by a newer connection from this agent');
    }
    if (this.proxyList) channel.announceProxies?.(this.proxyList);
  }

  /** Forgets a channel that closed (unless a newer one already replaced it) and fails its dials. */
  unregister(channel: ControlChannel): void {
    if (this.channels.get(channel.nodeId) === channel) this.channels.delete(channel.nodeId);
    this.forget(channel);
    this.failDialsOf(channel, 'its tunnel closed');
  }

  /** Closes the tunnel of `nodeId` if it is connected here (a leaf the root stopped trusting). */
  disconnect(nodeId: string, reason: string): void {
    this.channels.get(nodeId)?.close(POLICY_VIOLATION, reason);
  }

  /** Whether an agent connected here advertised `service`. */
  serves(service: TunnelService): boolean {
    return this.providers.has(serviceKey(service));
  }

  /** A byte stream to `service`, through the latest agent that advertised it. */
  dial(service: TunnelService): Promise<Duplex> {
    const channel = this.providers.get(serviceKey(service))?.at(-1);
    const what = describeService(service);
    if (!channel) {
      return Promise.reject(new Error(`${what} is not connected to this proxy`));
    }
    const id = randomBytes(16).toString('hex');
    const timeoutMs = this.options.dialTimeoutMs ?? dialTimeoutMs;
    return new Promise<Duplex>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new Error(`${what} did not open the tunnel connection within ${timeoutMs / 1000} s`),
        );
      }, timeoutMs);
      this.pending.set(id, { channel, service, resolve, reject, timer });
      channel.requestDial(id, service);
    });
  }

  /**
   * The agent said it cannot open dial `id` (it serves no such service): the dial fails with its
   * words. Only the channel the dial went out on may refuse it.
   */
  refuse(channel: ControlChannel, id: string, message: string): void {
    const dial = this.pending.get(id);
    if (dial?.channel !== channel) return;
    this.pending.delete(id);
    clearTimeout(dial.timer);
    dial.reject(
      new Error(
        `the agent of node ${channel.nodeId} cannot open ${describeService(dial.service)}: ${message}`,
      ),
    );
  }

  /**
   * Hands a data socket to the dial that is waiting for `id`, if that dial is still pending and
   * the channel it went out on is still its agent's current one. The id is spent either way.
   */
  accept(id: string, socket: WebSocket): boolean {
    const dial = this.pending.get(id);
    if (!dial) return false;
    this.pending.delete(id);
    clearTimeout(dial.timer);
    if (this.channels.get(dial.channel.nodeId) !== dial.channel) {
      dial.reject(
        new Error(
          `the agent of ${describeService(dial.service)} reconnected while the connection was opening`,
        ),
      );
      return false;
    }
    dial.resolve(createWebSocketStream(socket));
    return true;
  }

  /** Closes every agent's channel (they reconnect to another proxy or when this one is back). */
  close(): void {
    this.closed = true;
    for (const channel of [...this.channels.values()]) {
      this.channels.delete(channel.nodeId);
      this.forget(channel);
      this.failDialsOf(channel, 'the proxy is shutting down');
      channel.close(GOING_AWAY, 'the proxy is shutting down');
    }
  }

  /** Takes a channel out of the providers of every service it advertised. */
  private forget(channel: ControlChannel): void {
    for (const service of channel.services) {
      const key = serviceKey(service);
      const rest = (this.providers.get(key) ?? []).filter((other) => other !== channel);
      if (rest.length > 0) this.providers.set(key, rest);
      else this.providers.delete(key);
    }
  }

  private failDialsOf(channel: ControlChannel, why: string): void {
    for (const [id, dial] of this.pending) {
      if (dial.channel !== channel) continue;
      this.pending.delete(id);
      clearTimeout(dial.timer);
      dial.reject(new Error(`cannot reach ${describeService(dial.service)}: ${why}`));
    }
  }
}
