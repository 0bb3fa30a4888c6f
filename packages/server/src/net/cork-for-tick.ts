import type { Writable } from 'node:stream';

const corked = new WeakSet<Writable>();

/**
 * Corks `stream` until the next tick, once per tick however often it is called: everything
 * written to it in this turn of the event loop leaves as one writev. Over TLS that is one call
 * into OpenSSL and one system call for what would otherwise be one per write (see
 * coalescing-pipe.ts for why that matters). Nested corks (ws corks around each frame) are
 * counted by Node, so they stay inside this one.
 */
export function corkForTick(stream: Writable): void {
  if (corked.has(stream) || stream.destroyed) return;
  corked.add(stream);
  stream.cork();
  process.nextTick(() => {
    corked.delete(stream);
    stream.uncork();
  });
}
