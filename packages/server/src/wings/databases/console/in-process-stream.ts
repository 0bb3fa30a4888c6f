import { Duplex } from 'node:stream';

/**
 * Two connected in-memory streams: what one end writes, the other reads. The browser's SQL
 * console talks to a database's engine over such a pair, so its statements take exactly the
 * path psql's or mariadb's do (the same checks, audit and locks) without a socket. The client end
 * also answers the few socket calls the `pg` driver makes on a stream it is given.
 */
function inProcessPair(): { client: Duplex; server: Duplex } {
  const ends: Duplex[] = [];
  const end = (other: () => Duplex) =>
    new Duplex({
      read() {},
      // Delivered on the next tick, in order, as a socket's bytes are: never inside the writer's
      // own call, where a driver (mysql2) would see the answer before it has set up for it.
      write(chunk: Buffer, _encoding, done) {
        process.nextTick(() => other().push(chunk));
        done();
      },
      final(done) {
        process.nextTick(() => other().push(null));
        done();
      },
      destroy(error, done) {
        process.nextTick(() => other().push(null));
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

/**
 * The client's end of an in-process pair whose other end `serve` answers (an engine serving a
 * connection): the SQL console's and the connection test's way in, as a socket's would be.
 */
export function servedInProcess(serve: (stream: Duplex) => Promise<unknown>): Duplex {
  const { client, server } = inProcessPair();
  void serve(server).catch(() => undefined);
  return client;
}
