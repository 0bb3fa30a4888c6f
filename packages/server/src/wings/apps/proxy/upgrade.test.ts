import http, { type IncomingMessage } from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import {
  closedPort,
  eventually,
  ProxyFixture,
  rawExchange,
  targetFor,
} from './proxy-fixture.testkit.js';

const fixture = new ProxyFixture();
afterEach(() => fixture.closeAll());

/** A WebSocket echo app; it keeps the upgrade requests it saw and its open sockets. */
async function echoApp() {
  const server = http.createServer((_req, res) => res.end('plain'));
  const wss = new WebSocketServer({ server });
  const requests: IncomingMessage[] = [];
  const sockets: WebSocket[] = [];
  wss.on('connection', (socket, req) => {
    requests.push(req);
    sockets.push(socket);
    socket.on('message', (data, binary) => socket.send(data, { binary }));
  });
  const port = await fixture.listen(server);
  fixture.closeAfter(() => wss.close());
  return { port, url: `http://127.0.0.1:${port}`, requests, sockets };
}

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers });
  fixture.closeAfter(() => socket.terminate());
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) =>
      reject(new Error(`answered ${res.statusCode}`)),
    );
  });
}

const nextMessage = (socket: WebSocket): Promise<string> =>
  new Promise((resolve) => socket.once('message', (data: Buffer) => resolve(data.toString())));

describe('AppProxy.upgrade', () => {
  it('joins a WebSocket to the app: messages echo, identity headers are replaced, the path keeps its base', async () => {
    const app = await echoApp();
    const done: unknown[] = [];
    const { port } = await fixture.proxyServer(() =>
      targetFor(`${app.url}/base`, {
        stripHeaders: ['x-postern-jwt'],
        setHeaders: { 'x-postern-jwt': 'signed' },
        onRequestDone: (info) => done.push(info),
      }),
    );
    const socket = await open(`ws://127.0.0.1:${port}/live?stream=1`, {
      'X-Postern-Jwt': 'forged',
      x_postern_jwt: 'forged',
      'x-forwarded-for': '6.6.6.6',
    });
    socket.send('hello');
    expect(await nextMessage(socket)).toBe('hello');
    const big = 'x'.repeat(1024 * 1024);
    socket.send(big);
    expect(await nextMessage(socket)).toBe(big);

    const seen = app.requests[0]!;
    expect(seen.url).toBe('/base/live?stream=1');
    expect(seen.headers['x-postern-jwt']).toBe('signed');
    expect(seen.rawHeaders.join('\n')).not.toContain('forged');
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers.host).toBe(`127.0.0.1:${app.port}`);
    expect(seen.headers.upgrade).toBe('websocket');
    expect(done).toEqual([{ method: 'GET', path: '/live', status: 101 }]);
  });

  it('joins a WebSocket over the stream connect returns', async () => {
    const app = await echoApp();
    let dials = 0;
    const { port } = await fixture.proxyServer(() =>
      targetFor('http://app.behind.agent', {
        connect: () => {
          dials++;
          return net.connect(app.port, '127.0.0.1');
        },
      }),
    );
    const socket = await open(`ws://127.0.0.1:${port}/`);
    socket.send('through the tunnel');
    expect(await nextMessage(socket)).toBe('through the tunnel');
    expect(dials).toBe(1);
    expect(app.requests[0]!.headers.host).toBe('app.behind.agent');
  });

  it('closes the app side when the client closes, and the client side when the app closes', async () => {
    const app = await echoApp();
    const { port } = await fixture.proxyServer(() => targetFor(app.url));

    const first = await open(`ws://127.0.0.1:${port}/`);
    await eventually(() => app.sockets.length === 1);
    const appClosed = new Promise<number>((resolve) => app.sockets[0]!.once('close', resolve));
    first.close(4001, 'bye');
    expect(await appClosed).toBe(4001);

    const second = await open(`ws://127.0.0.1:${port}/`);
    await eventually(() => app.sockets.length === 2);
    const clientClosed = new Promise<number>((resolve) => second.once('close', resolve));
    app.sockets[1]!.close(4002, 'app leaves');
    expect(await clientClosed).toBe(4002);

    // An app that drops the connection without a close frame: the client is dropped too.
    const third = await open(`ws://127.0.0.1:${port}/`);
    await eventually(() => app.sockets.length === 3);
    const dropped = new Promise<number>((resolve) => third.once('close', resolve));
    app.sockets[2]!.terminate();
    expect(await dropped).toBe(1006);
  });

  it('relays a refusal of the upgrade and ends the socket', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'text/plain', 'set-cookie': 'a=1; Domain=internal' });
      res.end('no sockets here');
    });
    const appPort = await fixture.listen(server);
    const { port } = await fixture.proxyServer(() => targetFor(`http://127.0.0.1:${appPort}`));
    const answer = await rawExchange(port, upgradeRequest('/'));
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toMatch(/\r\nset-cookie: a=1\r\n/i);
    expect(answer.endsWith('\r\n\r\nno sockets here')).toBe(true);
  });

  it('answers 502 raw when the app cannot be reached, and 504 when it does not answer', async () => {
    const refusing = await closedPort();
    const refused = await fixture.proxyServer(() => targetFor(`http://127.0.0.1:${refusing}`));
    const answer = await rawExchange(refused.port, upgradeRequest('/'));
    expect(answer).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
    expect(answer).not.toContain(String(refusing));

    const silent = http.createServer();
    silent.on('upgrade', () => undefined);
    const silentPort = await fixture.listen(silent);
    const slow = await fixture.proxyServer(() => targetFor(`http://127.0.0.1:${silentPort}`), {
      upstreamTimeoutMs: 200,
    });
    expect(await rawExchange(slow.port, upgradeRequest('/'))).toMatch(/^HTTP\/1\.1 504 /);
  });

  it('forwards bytes the client sent right behind its request, after the 101', async () => {
    const app = http.createServer();
    const received: Buffer[] = [];
    app.on('upgrade', (_req: IncomingMessage, socket: net.Socket, head: Buffer) => {
      received.push(head);
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: raw\r\nConnection: Upgrade\r\n\r\nfrom app',
      );
    });
    const appPort = await fixture.listen(app);
    const { port } = await fixture.proxyServer(() => targetFor(`http://127.0.0.1:${appPort}`));
    const answer = await rawExchange(
      port,
      'GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: raw\r\n\r\nearly bytes',
      500,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(answer).toMatch(/\r\nupgrade: raw\r\n/i);
    expect(answer.endsWith('\r\n\r\nfrom app')).toBe(true);
    await eventually(() => Buffer.concat(received).toString() === 'early bytes');
  });

  it('refuses an upgrade request with a body, an absolute-form target or an upgrade to HTTP/2', async () => {
    const app = await echoApp();
    const { port } = await fixture.proxyServer(() => targetFor(app.url));
    // h2c would carry requests past every header rule (h2c smuggling).
    const h2c = upgradeRequest('/')
      .replace('Upgrade: websocket', 'Upgrade: H2C')
      .replace(
        'Connection: Upgrade',
        'Connection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA',
      );
    expect(await rawExchange(port, h2c)).toMatch(/^HTTP\/1\.1 400 /);
    expect(await rawExchange(port, upgradeRequest('http://other/'))).toMatch(/^HTTP\/1\.1 400 /);
    const withBody = upgradeRequest('/').replace('\r\n\r\n', '\r\nContent-Length: 3\r\n\r\nabc');
    expect(await rawExchange(port, withBody)).toMatch(/^HTTP\/1\.1 400 /);
    expect(app.requests).toHaveLength(0);
  });
});

function upgradeRequest(target: string): string {
  return [
    `GET ${target} HTTP/1.1`,
    'Host: app.proxy.test',
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    '',
    '',
  ].join('\r\n');
}
