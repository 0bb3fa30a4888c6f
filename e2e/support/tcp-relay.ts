import { createServer, connect, type Socket } from 'node:net';

export interface TcpRelay {
  /** `http://localhost:<port>`: the relay's address, for a browser context's baseURL. */
  url: string;
  /**
   * The network drops: every connection through the relay is cut without a close (the browser
   * sees its sockets fail, the server its peers vanish), and new ones are refused for `downMs`.
   */
  cut(downMs: number): void;
  /**
   * For `ms`, WebSocket upgrades are refused while plain HTTP requests pass (a path that breaks
   * long-lived sockets only): a terminal cannot resume, yet the page can still make calls.
   */
  refuseWebSockets(ms: number): void;
  close(): Promise<void>;
}

/**
 * A TCP relay on loopback in front of a server: what a browser's network path is, with a switch
 * to break it. Bytes pass unchanged (no HTTP or TLS is ended here).
 */
export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const open = new Set<Socket>();
  let downUntil = 0;
  let noSocketsUntil = 0;
  const server = createServer((client) => {
    if (Date.now() < downUntil) return client.destroy();
    if (Date.now() >= noSocketsUntil) return relay(client);
    // The request's head tells an upgrade from a call: look at it before passing anything on.
    client.once('error', () => client.destroy());
    client.once('data', (head: Buffer) => {
      if (/^upgrade:\s*websocket/im.test(head.toString('latin1'))) return client.destroy();
      client.pause();
      client.unshift(head);
      relay(client);
      client.resume();
    });
  });
  const relay = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        open.delete(from);
        to.destroy();
      });
    }
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://localhost:${port}`,
    cut(downMs) {
      downUntil = Date.now() + downMs;
      // A reset, not a FIN: as when a laptop's network goes away, no close frame is ever sent.
      for (const socket of open) socket.resetAndDestroy();
    },
    refuseWebSockets(ms) {
      noSocketsUntil = Date.now() + ms;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
