import http from 'node:http';
import https from 'node:https';

/** A pooled connection unused this long is closed: a quiet app keeps none open. */
const idleSocketMs = 60_000;

/**
 * One keep-alive agent per upstream origin and TLS setting, so requests to an app reuse a few
 * warm connections instead of dialling (and for https, handshaking) each time. Idle connections
 * close after a minute, and an agent left with none is dropped, so apps that come and go (an
 * agent's, a removed one) leave nothing behind.
 */
export class UpstreamPool {
  private readonly agents = new Map<string, http.Agent>();
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly maxSockets: number) {
    this.sweep = setInterval(() => this.dropUnused(), idleSocketMs);
    this.sweep.unref();
  }

  /** How many origins have an agent now. */
  get size(): number {
    return this.agents.size;
  }

  /** Drops the agents with no connection open, idle or busy, and no request waiting. */
  dropUnused(): void {
    const empty = (list: NodeJS.ReadOnlyDict<unknown[]>) =>
      Object.values(list).every((each) => !each || each.length === 0);
    for (const [key, agent] of this.agents) {
      if (empty(agent.sockets) && empty(agent.freeSockets) && empty(agent.requests)) {
        agent.destroy();
        this.agents.delete(key);
      }
    }
  }

  agentFor(upstream: URL, insecureSkipVerify: boolean): http.Agent {
    const secure = upstream.protocol === 'https:';
    // Verified and unverified connections to one origin never share a socket.
    const key = `${upstream.protocol}//${upstream.host}${secure && insecureSkipVerify ? ' insecure' : ''}`;
    let agent = this.agents.get(key);
    if (agent === undefined) {
      // LIFO reuses the connection used last, so the others idle out and a quiet app keeps few.
      // `timeout` is how long a free socket may idle before the agent closes it.
      const options = {
        keepAlive: true,
        maxSockets: this.maxSockets,
        scheduling: 'lifo' as const,
        timeout: idleSocketMs,
      };
      agent = secure
        ? new https.Agent({ ...options, rejectUnauthorized: !insecureSkipVerify })
        : new http.Agent(options);
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** Closes every pooled connection; requests in flight on them fail. */
  close(): void {
    clearInterval(this.sweep);
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
