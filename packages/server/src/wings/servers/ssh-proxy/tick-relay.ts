import type { Readable, Writable } from 'node:stream';

/** How long a short tail of a bulk stream may wait for the data that follows it. */
export const tailWaitMs = 1;

export interface TickRelayOptions {
  end: boolean;
  onStop: (error: Error) => void;
  /**
   * The data size of one packet of `to` (an SSH channel). Once a turn has brought at least
   * that much, only whole packets are written and the rest waits for the next data (at most
   * `tailWaitMs`), so a bulk stream leaves as full packets instead of one full and one short
   * per read. Less than a packet is written at once: a small answer never waits. A chunk that
   * fills its packets (the last more than half) is written as it is, not joined: see `flush`.
   */
  packetSize?: number;
}

/**
 * Pipes `from` into `to`, showing every chunk to `watch` first, and writes what arrives in one
 * turn of the event loop as one buffer. One read from a socket holds several SSH packets; their
 * data, written one by one into an SSH channel, would leave as as many packets, the last of each
 * cut short; joined, the channel cuts it into full packets. `watch` may throw to stop the relay:
 * the chunk is then not forwarded. Backpressure as pipe(): `from` pauses while `to` is full.
 */
export function tickRelay(
  from: Readable,
  to: Writable,
  watch: (chunk: Buffer) => void,
  options: TickRelayOptions,
): void {
  let queued: Buffer[] = [];
  let queuedBytes = 0;
  let stopped = false;
  let tailTimer: NodeJS.Timeout | undefined;

  const write = (data: Buffer) => {
    if (!to.write(data)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  };
  const join = (chunks: Buffer[], bytes: number): Buffer =>
    chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes);
  const take = (): Buffer => {
    const data = join(queued, queuedBytes);
    queued = [];
    queuedBytes = 0;
    return data;
  };
  const flushAll = () => {
    clearTimeout(tailTimer);
    tailTimer = undefined;
    if (queuedBytes > 0 && !stopped) write(take());
  };
  /** Whole packets of the joined chunks now; a short tail waits for what follows. */
  const writeWholeKeepTail = (data: Buffer, packetSize: number) => {
    const whole = data.length - (data.length % packetSize);
    if (whole > 0) write(whole === data.length ? data : data.subarray(0, whole));
    if (whole < data.length) {
      queued = [data.subarray(whole)];
      queuedBytes = data.length - whole;
      tailTimer ??= setTimeout(flushAll, tailWaitMs);
    }
  };
  const flush = () => {
    if (queuedBytes === 0 || stopped) return;
    const { packetSize } = options;
    if (!packetSize || queuedBytes < packetSize) return flushAll();
    // A chunk that fills its packets, the last more than half, goes as it is: joined, every
    // byte after it would be copied once more and leave shifted, for no fewer packets. When
    // the node's packets are the size of ours (sftp-relay.ts) that is every chunk of a bulk
    // copy. Smaller pieces are joined into whole packets; a run of them before such a chunk
    // goes first, short end and all (a held tail too), so the chunk keeps its alignment.
    const chunks = queued;
    queued = [];
    queuedBytes = 0;
    let run: Buffer[] = [];
    let runBytes = 0;
    for (const chunk of chunks) {
      const last = chunk.length % packetSize;
      if (last === 0 || last > packetSize / 2) {
        if (runBytes > 0) write(join(run, runBytes));
        run = [];
        runBytes = 0;
        write(chunk);
      } else {
        run.push(chunk);
        runBytes += chunk.length;
      }
    }
    if (runBytes > 0) writeWholeKeepTail(join(run, runBytes), packetSize);
  };

  from.on('data', (chunk: Buffer) => {
    if (stopped) return;
    try {
      watch(chunk);
    } catch (error) {
      stopped = true;
      clearTimeout(tailTimer);
      queued = [];
      queuedBytes = 0;
      return options.onStop(error as Error);
    }
    queued.push(chunk);
    queuedBytes += chunk.length;
    // The first chunk of a turn schedules the flush (a held tail has its timer instead).
    if (queued.length === 1 || (tailTimer && queued.length === 2)) process.nextTick(flush);
  });
  from.on('end', () => {
    flushAll();
    if (options.end && !stopped) to.end();
  });
}
