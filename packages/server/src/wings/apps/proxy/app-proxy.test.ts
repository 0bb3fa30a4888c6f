import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closedPort,
  eventually,
  ProxyFixture,
  rawExchange,
  send,
  targetFor,
} from './proxy-fixture.testkit.js';

const fixture = new ProxyFixture();
afterEach(() => fixture.closeAll());

describe('AppProxy.forward', () => {
  it('sends the request under the base path, with its method, query and body, and relays the answer', async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(() => targetFor(`${upstream.url}/base/`));
    const answer = await send(port, '/x/y?q=1&r=%2F', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      method: 'POST',
      url: '/base/x/y?q=1&r=%2F',
      body: 'hello',
      headers: { 'content-type': 'text/plain', 'content-length': '5' },
    });
    const root = await fixture.proxyServer(() => targetFor(upstream.url));
    expect(JSON.parse((await send(root.port, '/x?y')).body).url).toBe('/x?y');
  });

  it('lets a client that expects 100 Continue send its body; the app is not asked again', async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(() => targetFor(upstream.url));
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: { expect: '100-continue', 'content-length': 4 },
      });
      req.on('continue', () => req.end('body'));
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    expect(status).toBe(200);
    expect(upstream.seen[0]).toMatchObject({ body: 'body' });
    expect(upstream.seen[0]!.headers.expect).toBeUndefined();
  });

  it("sends the upstream's Host and states the client's address, host and scheme itself", async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(() =>
      targetFor(upstream.url, { publicHost: 'grafana.proxy.test', publicPort: '3080' }),
    );
    await send(port, '/', {
      headers: {
        host: 'grafana.proxy.test:3080',
        'x-forwarded-for': '6.6.6.6',
        'x-forwarded-host': 'evil.test',
        'x-forwarded-proto': 'http',
        forwarded: 'for=6.6.6.6',
        'x-real-ip': '6.6.6.6',
      },
    });
    const { headers } = upstream.seen[0]!;
    expect(headers.host).toBe(`127.0.0.1:${upstream.port}`);
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-forwarded-host']).toBe('grafana.proxy.test');
    expect(headers['x-forwarded-proto']).toBe('https');
    expect(headers['x-forwarded-port']).toBe('3080');
    expect(headers.forwarded).toBeUndefined();
    expect(headers['x-real-ip']).toBeUndefined();
  });

  it('never lets a client-sent identity header through, however often and however spelled; sets its own', async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(() =>
      targetFor(upstream.url, {
        stripHeaders: ['x-postern-jwt', 'x-postern-user'],
        setHeaders: { 'X-Postern-Jwt': 'signed.jwt', 'X-WebAuth-User': 'alice' },
      }),
    );
    // A raw request, so the duplicates and the spellings reach the proxy exactly as written.
    await rawExchange(
      port,
      [
        'GET / HTTP/1.1',
        'Host: app.proxy.test',
        'X-Postern-Jwt: forged-1',
        'x-postern-jwt: forged-2',
        'X_POSTERN_JWT: forged-3',
        'X-POSTERN-USER: root',
        'X-Postern-User: root',
        'x-webauth-user: root',
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
    );
    const { rawHeaders } = upstream.seen[0]!;
    const lines = pairs(rawHeaders).map(([name, value]) => `${name.toLowerCase()}: ${value}`);
    expect(lines).toContain('x-postern-jwt: signed.jwt');
    expect(lines).toContain('x-webauth-user: alice');
    expect(lines.filter((line) => /^x.postern.jwt:/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => /^x.webauth.user:/.test(line))).toHaveLength(1);
    expect(lines.join('\n')).not.toMatch(/forged|root/);
  });

  it("keeps the proxy's own cookies from the app", async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(() =>
      targetFor(upstream.url, { stripCookies: ['__Host-postern_app'] }),
    );
    await send(port, '/', { headers: { cookie: 'a=1; __Host-postern_app=secret; b=2' } });
    expect(upstream.seen[0]!.headers.cookie).toBe('a=1; b=2');
  });

  it('removes hop-by-hop headers both ways', async () => {
    let received: http.IncomingHttpHeaders = {};
    const upstream = await fixture.upstream((req, res) => {
      received = req.headers;
      res.writeHead(200, {
        connection: 'keep-alive, X-Internal',
        'x-internal': 'secret',
        'keep-alive': 'timeout=30',
        'proxy-authenticate': 'Basic',
        trailer: 'X-Sum',
        'x-kept': 'yes',
      });
      res.end('ok');
    });
    const { port } = await fixture.proxyServer(() => targetFor(upstream.url));
    const answer = await send(port, '/', {
      headers: {
        connection: 'keep-alive, X-Hop',
        'x-hop': 'one hop only',
        'keep-alive': 'timeout=5',
        'proxy-connection': 'keep-alive',
        'proxy-authorization': 'Basic cHJveHk6cHJveHk=',
        te: 'trailers',
        upgrade: 'h2c',
        'x-end-to-end': 'kept',
      },
    });
    for (const name of [
      'x-hop',
      'keep-alive',
      'proxy-connection',
      'proxy-authorization',
      'te',
      'upgrade',
    ]) {
      expect(received[name], name).toBeUndefined();
    }
    expect(received['x-end-to-end']).toBe('kept');
    expect(received.connection).toBe('keep-alive');
    expect(answer.body).toBe('ok');
    expect(answer.headers['x-kept']).toBe('yes');
    for (const name of ['x-internal', 'proxy-authenticate', 'trailer']) {
      expect(answer.headers[name], name).toBeUndefined();
    }
    expect(answer.headers['keep-alive']).not.toBe('timeout=30');
  });

  it('rewrites Location and Set-Cookie to the public host', async () => {
    const upstream = await fixture.upstream((req, res) => {
      const self = `http://${req.headers.host}`;
      const locations: Record<string, string> = {
        '/base/own': `${self}/base/dashboards?id=1#panel`,
        '/base/named': 'https://grafana.corp:8443/base/login',
        '/base/relative': '/base/relative/next',
        '/base/other': 'https://accounts.example.com/auth',
      };
      res.writeHead(302, {
        location: locations[req.url ?? ''] ?? '/',
        'set-cookie': [
          'sid=1; Domain=grafana.corp; Path=/base/api; HttpOnly',
          'theme=dark; Path=/',
        ],
      });
      res.end();
    });
    const { port } = await fixture.proxyServer(() =>
      targetFor(`${upstream.url}/base`, {
        publicHost: 'grafana.proxy.test',
        publicPort: '3080',
        redirectHosts: ['grafana.corp'],
      }),
    );
    expect((await send(port, '/own')).headers.location).toBe(
      'https://grafana.proxy.test:3080/dashboards?id=1#panel',
    );
    expect((await send(port, '/named')).headers.location).toBe(
      'https://grafana.proxy.test:3080/login',
    );
    expect((await send(port, '/relative')).headers.location).toBe('/base/relative/next');
    expect((await send(port, '/other')).headers.location).toBe('https://accounts.example.com/auth');
    expect((await send(port, '/own')).headers['set-cookie']).toEqual([
      'sid=1; Path=/api; HttpOnly',
      'theme=dark; Path=/',
    ]);
  });

  it('reuses a few keep-alive connections to the upstream for sequential requests', async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(() => targetFor(upstream.url));
    for (let i = 0; i < 20; i++) expect((await send(port, `/n/${i}`)).status).toBe(200);
    expect(upstream.seen).toHaveLength(20);
    expect(upstream.connections()).toBeLessThanOrEqual(2);
  });

  it('sends a bodiless request again on a fresh connection when the pooled one turns out closed', async () => {
    // The upstream answers the first request on a connection and drops the connection at the
    // second, as a server whose idle timeout fired at that very moment would.
    const served = new WeakMap<net.Socket, number>();
    const upstream = await fixture.upstream((req, res) => {
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      if (count > 1) req.socket.destroy();
      else res.end(`answered ${req.method}`);
    });
    const { port } = await fixture.proxyServer(() => targetFor(upstream.url));
    expect((await send(port, '/')).body).toBe('answered GET');
    expect((await send(port, '/')).body).toBe('answered GET');
    expect(upstream.connections()).toBe(2);
    // A POST may have had an effect: it is not sent twice.
    await send(port, '/');
    const post = await send(port, '/', { method: 'POST', body: 'x' });
    expect(post.status).toBe(502);
  });

  it('answers 400 to an absolute-form or non-path target and sends nothing upstream', async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(() => targetFor(upstream.url));
    for (const target of ['http://other.test/', '*', '/a/../../etc/passwd']) {
      const answer = await rawExchange(
        port,
        `GET ${target} HTTP/1.1\r\nHost: app.proxy.test\r\n\r\n`,
      );
      expect(answer, target).toMatch(/^HTTP\/1\.1 400 /);
    }
    expect(upstream.seen).toHaveLength(0);
    expect(upstream.connections()).toBe(0);
  });

  it('answers 502 naming no address when the upstream refuses the connection', async () => {
    const refusing = await closedPort();
    const done: unknown[] = [];
    const { port } = await fixture.proxyServer(() =>
      targetFor(`http://127.0.0.1:${refusing}`, { onRequestDone: (info) => done.push(info) }),
    );
    const answer = await send(port, '/page?secret=1');
    expect(answer.status).toBe(502);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    expect(answer.body).not.toContain(String(refusing));
    expect(done).toEqual([{ method: 'GET', path: '/page', status: 502 }]);
  });

  it('answers 504 when the upstream sends no response head in time', async () => {
    const waiting: http.ServerResponse[] = [];
    const upstream = await fixture.upstream((_req, res) => waiting.push(res));
    const done: unknown[] = [];
    const { port } = await fixture.proxyServer(
      () => targetFor(upstream.url, { onRequestDone: (info) => done.push(info) }),
      { upstreamTimeoutMs: 300 },
    );
    const started = Date.now();
    const answer = await send(port, '/slow');
    expect(answer.status).toBe(504);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(done).toEqual([{ method: 'GET', path: '/slow', status: 504 }]);
    // The upstream request was given up, not left open.
    await eventually(() => waiting[0]?.destroyed === true);
  });

  it('reports each request once, with its method, its path without the query and its status', async () => {
    const upstream = await fixture.upstream((req, res) => {
      res.statusCode = req.url === '/missing' ? 404 : 201;
      res.end();
    });
    const done: unknown[] = [];
    const { port } = await fixture.proxyServer(() =>
      targetFor(upstream.url, { onRequestDone: (info) => done.push(info) }),
    );
    await send(port, '/created?x=1', { method: 'PUT', body: 'x' });
    await send(port, '/missing');
    await rawExchange(port, 'GET http://other/ HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(done).toEqual([
      { method: 'PUT', path: '/created', status: 201 },
      { method: 'GET', path: '/missing', status: 404 },
      { method: 'GET', path: 'http://other/', status: 400 },
    ]);
  });
});

function pairs(raw: string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) result.push([raw[i]!, raw[i + 1]!]);
  return result;
}
