import type { AgentHeartbeats } from './control-socket.js';

type Read = { reader: AgentHeartbeats; value: unknown };

/**
 * What agents may serve and report, gathered from the wings: each wing whose resources agents
 * serve adds its kind and the reader of its part of the heartbeat (the servers wing the node's
 * fields, the apps wing the `apps` list). The tunnel accepts advertised services of these kinds
 * only. Every reader reads each frame before any records it, so a frame one reader refuses is
 * refused whole and the agent is told which field was wrong.
 */
export class AgentReports implements AgentHeartbeats<Read[]> {
  private readonly readers: AgentHeartbeats[] = [];
  private readonly served = new Set<string>();

  add<H>(kind: string, reader: AgentHeartbeats<H>): void {
    this.served.add(kind);
    this.readers.push(reader as AgentHeartbeats);
  }

  /** The kinds of service an agent may advertise. */
  get kinds(): ReadonlySet<string> {
    return this.served;
  }

  read(nodeId: string, frame: Record<string, unknown>) {
    const reads: Read[] = [];
    for (const reader of this.readers) {
      const read = reader.read(nodeId, frame);
      if (!read.ok) return read;
      reads.push({ reader, value: read.value });
    }
    return { ok: true as const, value: reads };
  }

  record(reads: Read[]): Promise<unknown> {
    return Promise.all(reads.map(({ reader, value }) => reader.record(value)));
  }
}
