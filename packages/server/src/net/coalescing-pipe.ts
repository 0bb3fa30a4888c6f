import type { Readable, Writable } from 'node:stream';

/**
 * Pipes `from` into `to` like `Readable.pipe`, but writes what arrives within one turn of the
 * event loop as one write: `to` is corked at the turn's first chunk and uncorked on the next
 * tick, and backpressure is looked at once per turn, not once per chunk.
 *
 * Why: a TLS socket hands its reader one 16 KiB record at a time, several per read from the
 * network, and its writer's high-water mark is 16 KiB. Piped as they come, each record is its
 * own write (its own call into OpenSSL and system call), and nearly every one pauses the reader
 * and resumes it at the next drain. Batched per turn, a PostgreSQL COPY through the native
 * listener went from 402 to 443 MiB/s on the 2-core test machine (`npm run bench:db`, three
 * runs each, alternating).
 *
 * Backpressure: every chunk of a turn is taken (the turn's reads bound that to what one read
 * from the network decrypted); after the turn, a writer over its high-water mark pauses the
 * reader until it drains. Returns the function that undoes the pipe.
 */
export function coalescingPipe(from: Readable, to: Writable): () => void {
  let corked = false;
  let piped = true;
  // The next tick: the turn's writes leave as one, then backpressure is looked at.
  const endOfTurn = () => {
    corked = false;
    to.uncork();
    if (piped && to.writableNeedDrain && !from.isPaused()) {
      from.pause();
      to.once('drain', resume);
    }
  };
  const resume = () => {
    if (piped) from.resume();
  };
  const onData = (chunk: Buffer) => {
    if (to.writableEnded || to.destroyed) return;
    if (!corked) {
      corked = true;
      to.cork();
      process.nextTick(endOfTurn);
    }
    to.write(chunk);
  };
  const onEnd = () => {
    if (piped && !to.writableEnded) to.end();
  };
  from.on('data', onData);
  from.once('end', onEnd);
  from.resume();
  return () => {
    piped = false;
    from.off('data', onData);
    from.off('end', onEnd);
    to.off('drain', resume);
  };
}
