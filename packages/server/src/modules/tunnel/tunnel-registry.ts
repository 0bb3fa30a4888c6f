import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import type { TunnelDialer } from '../terminal/node-dialer.js';
import { dialTimeoutMs, GOING_AWAY } from './tunnel-protocol.js';

/** An authenticated agent's control socket, as the registry sees it. */
export interface ControlChannel {
  readonly nodeId: string;
  /** Asks the agent to open a data socket for connection `id`. */
  requestDial(id: string): void;
  close(code: number, reason: string): void;
}

interface PendingDial {
  channel: ControlChannel;
  resolve(stream: Duplex): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The agents connected to this proxy, by node id, and the connections being opened through them.
 * A dial is a single-use random id sent down the control socket; the agent answers by opening a
 * data socket that names it. Only this process knows its agents: see docs/agents.md for what that
 * means behind a load balancer.
 */
export class TunnelRegistry implements TunnelDialer {
  private readonly channels = new Map<string, ControlChannel>();
  private readonly pending = new Map<string, PendingDial>();
  private closed = false;

  constructor(private readonly options: { dialTimeoutMs?: number } = {}) {}

  connected(nodeId: string): boolean {
    return this.channels.has(nodeId);
  }

  /** Adds an authenticated channel; an agent that reconnects replaces its older channel. */
  register(channel: ControlChannel): void {
    if (this.closed) return channel.close(GOING_AWAY, 'the proxy is shutting down');
    const older = this.channels.get(channel.nodeId);
    this.channels.set(channel.nodeId, channel);
    if (older && older !== channel) {
      this.failDialsOf(older, 'the agent reconnected');
      older.close(GOING_AWAY, 'replaced by a newer connection from this agent');
    }
  }

  /** Forgets a channel that closed (unless a newer one already replaced it) and fails its dials. */
  unregister(channel: ControlChannel): void {
    if (this.channels.get(channel.nodeId) === channel) this.channels.delete(channel.nodeId);
    this.failDialsOf(channel, 'its tunnel closed');
  }

  dial(nodeId: string): Promise<Duplex> {
    const channel = this.channels.get(nodeId);
    if (!channel) {
      return Promise.reject(new Error(`node ${nodeId} is not connected to this proxy`));
    }
    const id = randomBytes(16).toString('hex');
    const timeoutMs = this.options.dialTimeoutMs ?? dialTimeoutMs;
    return new Promise<Duplex>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new Error(
            `node ${nodeId} did not open the tunnel connection within ${timeoutMs / 1000} s`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, { channel, resolve, reject, timer });
      channel.requestDial(id);
    });
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
        new Error(`node ${dial.channel.nodeId} reconnected while the connection was opening`),
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
      this.failDialsOf(channel, 'the proxy is shutting down');
      channel.close(GOING_AWAY, 'the proxy is shutting down');
    }
  }

  private failDialsOf(channel: ControlChannel, why: string): void {
    for (const [id, dial] of this.pending) {
      if (dial.channel !== channel) continue;
      this.pending.delete(id);
      clearTimeout(dial.timer);
      dial.reject(new Error(`cannot reach node ${channel.nodeId}: ${why}`));
    }
  }
}
