import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpRelay {
  /** The relay's loopback port: clients connect here instead of to the target. */
  port: number;
  /**
   * The target "goes down": every relayed connection is closed and new ones are refused
   * (ECONNREFUSED), as with a stopped server, while the target itself keeps running.
   */
  cut(): Promise<void>;
  /**
   * The target goes silent (a host gone, a cable cut): relayed connections stay open, but no byte
   * passes either way any more, and nothing is closed.
   */
  freeze(): void;
  /** The target is back: listens again on the same port. */
  restore(): Promise<void>;
  /** Cuts for good. */
  close(): Promise<void>;
}

/**
 * A loopback TCP relay to 127.0.0.1:`targetPort` that a test can cut and restore, to simulate an
 * outage of a server it shares with other tests (such as shared-swift.testkit.ts's Swift).
 */
export async function startTcpRelay(targetPort: number): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    const target = connect(targetPort, '127.0.0.1');
    for (const socket of [client, target]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      // Either end failing ends both, as a broken path would.
      socket.once('error', () => {
        client.destroy();
        target.destroy();
      });
    }
    client.pipe(target).pipe(client);
    const pair: [Socket, Socket] = [client, target];
    pairs.add(pair);
    client.once('close', () => pairs.delete(pair));
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject).listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const cut = async () => {
    if (!server.listening) return;
    const closed = new Promise((resolve) => server.close(resolve));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    port,
    cut,
    freeze: () => {
      for (const [client, target] of pairs) {
        client.unpipe(target);
        target.unpipe(client);
        client.pause();
        target.pause();
      }
    },
    // Another program may have taken the port meanwhile (unlikely): then this rejects.
    restore: async () => {
      if (!server.listening) await listen(port);
    },
    close: cut,
  };
}
