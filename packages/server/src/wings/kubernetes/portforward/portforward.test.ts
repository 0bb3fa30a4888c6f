import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardToTcp } from '../../../testing/fake-kube/pod-port-forward.testkit.js';
import { readAll, until } from '../spdy/spdy.testkit.js';
import { acceptPortForward, type AcceptPortForwardOptions } from './accept-port-forward.js';
import { dialPortForward } from './dial-port-forward.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** An echo server standing for the pod's port, and a port-forward server in front of it. */
async function portForwardServer(options: AcceptPortForwardOptions = {}) {
  const echo = createTcpServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const echoPort = (echo.address() as AddressInfo).port;
  const server: Server = createHttpServer((_req, res) => res.writeHead(404).end());
  const sockets = new Set<Duplex>();
  const transports: string[] = [];
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    sockets.add(socket);
    acceptPortForward(req, socket, head, options).then(
      (session) => {
        transports.push(session.transport);
        session.onForward((connection) => {
          if (connection.port === 8080) forwardToTcp(connection, echoPort, 'test');
          else connection.fail(`nothing listens on ${connection.port}`);
        });
      },
      () => undefined,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
    echo.close();
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1/namespaces/default/pods/test/portforward`,
    transports,
  };
}

describe.each(['websocket', 'spdy'] as const)('port-forward over %s', (transport) => {
  it('round-trips bytes on concurrent forwarded connections', async () => {
    const { url } = await portForwardServer();
    const client = await dialPortForward(url, { transports: [transport] });
    expect(client.transport).toBe(transport);
    const payloads = [randomBytes(300 * 1024), randomBytes(10), randomBytes(64 * 1024)];
    const results = await Promise.all(
      payloads.map(async (payload) => {
        const { data, error } = await client.forward(8080);
        data.end(payload);
        return { echoed: await readAll(data), error: await error };
      }),
    );
    results.forEach((result, index) => {
      expect(result.echoed.equals(payloads[index]!)).toBe(true);
      expect(result.error).toBe('');
    });
    await client.close();
  });

  it('reports a failed forward on the error stream', async () => {
    const { url } = await portForwardServer();
    const client = await dialPortForward(url, { transports: [transport] });
    const { error } = await client.forward(9999);
    expect(await error).toBe('nothing listens on 9999');
    await client.close();
  });
});

describe('port-forward negotiation', () => {
  it('falls back to SPDY when the server refuses the WebSocket tunnel', async () => {
    const { url, transports } = await portForwardServer({ websocket: false });
    const client = await dialPortForward(url);
    expect(client.transport).toBe('spdy');
    await until(() => transports.length === 1, 'the session');
    expect(transports).toEqual(['spdy']);
    await client.close();
  });
});
