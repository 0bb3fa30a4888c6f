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
   * per read. Less than a packet is written at once: a small answer never waits.
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
  const take = (): Buffer => {
    const data = queued.length === 1 ? queued[0]! : Buffer.concat(queued, queuedBytes);
    queued = [];
    queuedBytes = 0;
    return data;
  };
  const flushAll = () => {
    clearTimeout(tailTimer);
    tailTimer = undefined;
    if (queuedBytes > 0 && !stopped) write(take());
  };
  const flush = () => {
    if (queuedBytes === 0 || stopped) return;
    const { packetSize } = options;
    if (!packetSize || queuedBytes < packetSize) return flushAll();
    const data = take();
    const whole = data.length - (data.length % packetSize);
    write(whole === data.length ? data : data.subarray(0, whole));
    if (whole < data.length) {
      queued = [data.subarray(whole)];
      queuedBytes = data.length - whole;
      tailTimer ??= setTimeout(flushAll, tailWaitMs);
    }
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
