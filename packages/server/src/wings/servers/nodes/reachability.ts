import { connect } from 'node:net';
import type { InventoryService } from './inventory.service.js';
import { hostOf } from './node-records.js';

export interface ReachabilityOptions {
  /** How often each agentless host is checked (`openssh_check_interval`). */
  intervalMs: number;
  /** How long a check waits for the banner. */
  timeoutMs?: number;
  log: (message: string, fields?: object) => void;
}

/** How often the loop looks for hosts due a check: a host added a moment ago is checked soon. */
const tickMs = 1000;
/** An SSH server sends its identification first (RFC 4253 §4.2); 255 bytes is its limit. */
const maxBannerBytes = 255;

/**
 * Agentless OpenSSH hosts send no heartbeat, so the proxy asks them: every `intervalMs` it opens
 * a TCP connection to each and reads the SSH banner (`SSH-2.0-…`). An answer writes the same
 * online marker a heartbeat does, living two intervals plus a timeout, so one failed check is no
 * outage and the second shows the host offline. A host added since the last round is checked
 * within a second. Each proxy checks on its own; their markers agree.
 */
export class OpenSshReachability {
  private readonly timeoutMs: number;
  private readonly checkedAt = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly inventory: InventoryService,
    private readonly options: ReachabilityOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? Math.min(5000, options.intervalMs);
  }

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), Math.min(tickMs, this.options.intervalMs));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const now = Date.now();
    // Through the inventory's index of agentless hosts: agents, however many, cost nothing here.
    const hosts = this.inventory.agentlessHosts();
    const present = new Set(hosts.map((node) => node.metadata.name));
    for (const id of this.checkedAt.keys()) if (!present.has(id)) this.checkedAt.delete(id);
    for (const node of hosts) {
      const id = node.metadata.name;
      if (this.inFlight.has(id) || now - (this.checkedAt.get(id) ?? 0) < this.options.intervalMs) {
        continue;
      }
      this.checkedAt.set(id, now);
      this.inFlight.add(id);
      void this.check(id, node.spec.addr).finally(() => this.inFlight.delete(id));
    }
  }

  private async check(id: string, addr: string): Promise<void> {
    if (!(await answersSsh(addr, this.timeoutMs))) return;
    const ttlMs = 2 * this.options.intervalMs + this.timeoutMs;
    await this.inventory
      .markReachable(id, ttlMs)
      .catch((error: unknown) =>
        this.options.log('recording a reachable server failed', { err: error, nodeId: id }),
      );
  }
}

/** Whether `host:port` answers with an SSH identification line within `timeoutMs`. */
export function answersSsh(addr: string, timeoutMs: number): Promise<boolean> {
  const port = Number(addr.slice(addr.lastIndexOf(':') + 1));
  return new Promise((resolve) => {
    const socket = connect({ host: hostOf(addr), port });
    let received = '';
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      // Servers may send other lines before their identification (RFC 4253 §4.2).
      const lines = received.split('\n');
      if (lines.slice(0, -1).some((line) => line.startsWith('SSH-'))) done(true);
      else if (received.length > maxBannerBytes * 4) done(false);
    });
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
  });
}
