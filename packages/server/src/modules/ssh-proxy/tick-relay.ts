import type { Readable, Writable } from 'node:stream';

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
  options: { end: boolean; onStop: (error: Error) => void },
): void {
  let queued: Buffer[] = [];
  let stopped = false;
  const flush = () => {
    if (queued.length === 0 || stopped) return;
    const data = queued.length === 1 ? queued[0]! : Buffer.concat(queued);
    queued = [];
    if (!to.write(data)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  };
  from.on('data', (chunk: Buffer) => {
    if (stopped) return;
    try {
      watch(chunk);
    } catch (error) {
      stopped = true;
      queued = [];
      return options.onStop(error as Error);
    }
    if (queued.push(chunk) === 1) process.nextTick(flush);
  });
  from.on('end', () => {
    flush();
    if (options.end && !stopped) to.end();
  });
}
