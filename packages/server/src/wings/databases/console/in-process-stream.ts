import { Duplex } from 'node:stream';

/**
 * Two connected in-memory streams: what one end writes, the other reads. The browser's SQL
 * console talks to the PostgreSQL engine over such a pair, so its statements take exactly the
 * path a psql's do (the same checks, audit and locks) without a socket. The client end also
 * answers the few socket calls the `pg` driver makes on a stream it is given.
 */
export function inProcessPair(): { client: Duplex; server: Duplex } {
  const ends: Duplex[] = [];
  const end = (other: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        other().push(chunk);
        done();
      },
      final(done) {
        other().push(null);
        done();
      },
      destroy(error, done) {
        other().push(null);
        done(error);
      },
    });
  ends.push(
    end(() => ends[1]!),
    end(() => ends[0]!),
  );
  const client = Object.assign(ends[0]!, {
    connect() {
      process.nextTick(() => client.emit('connect'));
      return client;
    },
    setNoDelay() {
      return client;
    },
    setKeepAlive() {
      return client;
    },
  });
  return { client, server: ends[1]! };
}
