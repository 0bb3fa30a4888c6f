import { Duplex } from 'node:stream';

/**
 * Two connected in-memory streams, a socket's two ends without the socket: what one writes the
 * other reads, with backpressure (a write waits while the other end's reader is full, so a
 * large response into a slow tunnel is held, not buffered whole), ends as each side ends, and
 * destroying either end destroys both. `remoteAddress` is what the second end reports, for an
 * HTTP server that reads its connections' peer.
 */
export function duplexPair(remoteAddress?: string): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  /** A write into end `i` that waits for end `i`'s reader to want more. */
  const waiting: Array<(() => void) | undefined> = [undefined, undefined];
  const make = (me: 0 | 1) => {
    const peer = () => ends[1 - me]!;
    return new Duplex({
      read() {
        const resume = waiting[me];
        waiting[me] = undefined;
        resume?.();
      },
      write(chunk: Buffer, _encoding, done) {
        if (peer().push(chunk)) done();
        else waiting[1 - me] = done;
      },
      final(done) {
        peer().push(null);
        done();
      },
      destroy(error, done) {
        const other = peer();
        if (!other.destroyed) other.destroy();
        // A write still waiting on this end's reader is let go: there is no reader any more.
        const stuck = waiting[me];
        waiting[me] = undefined;
        stuck?.();
        done(error);
      },
    });
  };
  ends.push(make(0), make(1));
  if (remoteAddress !== undefined) Object.assign(ends[1]!, { remoteAddress });
  return [ends[0]!, ends[1]!];
}
