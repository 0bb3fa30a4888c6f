import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import net from 'node:net';
import { AppProxy, type ProxyTarget } from './app-proxy.js';

/**
 * Real servers on loopback for the proxy's tests: an upstream, the proxy in a node:http server
 * (as the apps wing will run it), and clients that speak plain HTTP or raw bytes. Each test
 * registers what it starts with `closeAfter`, and `closeAll` ends it all.
 */
export class ProxyFixture {
  private readonly closers: (() => Promise<void> | void)[] = [];

  closeAfter(close: () => Promise<void> | void): void {
    this.closers.push(close);
  }

  async closeAll(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close();
  }

  /** Listens on 127.0.0.1 with a port of the OS's choosing; closed (connections too) by closeAll. */
  async listen<T extends net.Server>(server: T): Promise<number> {
    // Every socket, upgraded ones too (Node's HTTP server forgets those), is ended at the close.
    const sockets = new Set<net.Socket>();
    server.on('connection', (socket: net.Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.closeAfter(async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    });
    return (server.address() as net.AddressInfo).port;
  }

  /** An upstream whose handler sees each request; it counts the connections it accepted. */
  async upstream(
    handler: http.RequestListener,
  ): Promise<{ server: http.Server; port: number; url: string; connections: () => number }> {
    const server = http.createServer(handler);
    let connections = 0;
    server.on('connection', () => connections++);
    const port = await this.listen(server);
    return { server, port, url: `http://127.0.0.1:${port}`, connections: () => connections };
  }

  /** An upstream that answers every request with what it received, as JSON. */
  async echoUpstream() {
    const seen: ReceivedRequest[] = [];
    const upstream = await this.upstream((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const received = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          body: Buffer.concat(chunks).toString(),
        };
        seen.push(received);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(received));
      });
    });
    return { ...upstream, seen };
  }

  /** The proxy in a node:http server, for targets chosen per request. */
  async proxyServer(
    target: (req: IncomingMessage) => ProxyTarget,
    options?: ConstructorParameters<typeof AppProxy>[0],
    serverOptions: http.ServerOptions = {},
  ): Promise<{ proxy: AppProxy; server: http.Server; port: number }> {
    const proxy = new AppProxy(options);
    const server = http.createServer(serverOptions, (req, res) =>
      proxy.forward(req, res, target(req)),
    );
    server.on('upgrade', (req: IncomingMessage, socket: net.Socket, head: Buffer) =>
      proxy.upgrade(req, socket, head, target(req)),
    );
    const port = await this.listen(server);
    this.closeAfter(() => proxy.close());
    return { proxy, server, port };
  }
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

export function targetFor(upstream: string, more: Partial<ProxyTarget> = {}): ProxyTarget {
  return {
    upstream: new URL(upstream),
    insecureSkipVerify: false,
    publicHost: 'app.proxy.test',
    publicPort: '',
    setHeaders: {},
    stripHeaders: [],
    redirectHosts: [],
    ...more,
  };
}

/** A loopback port nobody listens on: bound once, then closed. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/** One request on a connection of its own; `headers` may repeat a name (a flat name, value list). */
export function send(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string> | string[]; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Writes raw bytes and reads until the server closes (or `waitMs` passes); a reset ends it too. */
export function rawExchange(port: number, text: string, waitMs = 2_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', () => undefined);
  });
}

/** Resolves when `condition` holds, checking every few milliseconds; fails after `timeoutMs`. */
export async function eventually(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
