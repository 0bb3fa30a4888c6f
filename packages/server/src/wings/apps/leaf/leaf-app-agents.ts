import http from 'node:http';
import type { Duplex } from 'node:stream';
import { asSocket } from '../../../net/post-json.js';

/** A session's pooled tunnels close after this long without a request. */
const idleMs = 60_000;

type Open = () => Promise<Duplex>;

/** Node's agent, with connections that are tunnels to the leaf instead of dialled sockets. */
class TunnelAgent extends http.Agent {
  lastUsed = Date.now();

  constructor(
    private readonly open: Open,
    /** Who its tunnels were opened as: they serve no one else. */
    readonly identity: string,
  ) {
    super({ keepAlive: true, maxSockets: 8, scheduling: 'lifo' });
  }

  override createConnection(
    _options: object,
    created: (error: Error | null, socket: Duplex) => void,
  ): undefined {
    this.lastUsed = Date.now();
    this.open().then(
      (stream) => created(null, asSocket(stream)),
      (error: unknown) =>
        created(error instanceof Error ? error : new Error(String(error)), undefined as never),
    );
    return undefined;
  }

  get busy(): boolean {
    const some = (list: NodeJS.ReadOnlyDict<unknown[]>) =>
      Object.values(list).some((each) => each !== undefined && each.length > 0);
    return some(this.sockets) || some(this.requests);
  }
}

/**
 * Keep-alive pools for app sessions whose app is a leaf's: a browser's requests reuse a few
 * tunnels to the leaf (each a WebSocket upgrade and a check there) rather than one per request.
 * A session's pool closes when it ends, or after a minute without requests.
 */
export class LeafAppAgents {
  private readonly agents = new Map<string, TunnelAgent>();
  private readonly sweep: NodeJS.Timeout;

  constructor() {
    this.sweep = setInterval(() => this.closeIdle(), idleMs / 2);
    this.sweep.unref();
  }

  /**
   * The pool of session `sid`, whose new connections `open` makes as `identity` (the user's roles
   * and traits here): when those change, the old tunnels close, and the leaf judges the new ones
   * with the grant the change brings (leaf-grants.ts).
   */
  for(sid: string, open: Open, identity = ''): http.Agent {
    let agent = this.agents.get(sid);
    if (agent && agent.identity !== identity) {
      this.drop(sid);
      agent = undefined;
    }
    if (!agent) {
      agent = new TunnelAgent(open, identity);
      this.agents.set(sid, agent);
    }
    agent.lastUsed = Date.now();
    return agent;
  }

  /** Closes session `sid`'s tunnels (it ended). */
  drop(sid: string): void {
    this.agents.get(sid)?.destroy();
    this.agents.delete(sid);
  }

  get size(): number {
    return this.agents.size;
  }

  closeIdle(now = Date.now()): void {
    for (const [sid, agent] of this.agents) {
      if (!agent.busy && now - agent.lastUsed >= idleMs) this.drop(sid);
    }
  }

  close(): void {
    clearInterval(this.sweep);
    for (const sid of [...this.agents.keys()]) this.drop(sid);
  }
}
