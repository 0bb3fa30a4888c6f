import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, ProxyFixture, targetFor } from './proxy-fixture.testkit.js';

const fixture = new ProxyFixture();
afterEach(() => fixture.closeAll());

const connectionsOf = (server: net.Server): Promise<number> =>
  new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

/** Resolves when both servers hold no connection: nothing outlived the exchange. */
async function noConnectionsLeft(...servers: net.Server[]): Promise<void> {
  const counts = async () => Promise.all(servers.map(connectionsOf));
  const start = Date.now();
  while ((await counts()).some((count) => count > 0)) {
    if (Date.now() - start > 5_000)
      throw new Error(`connections left: ${(await counts()).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('one side leaving takes the other down', () => {
  it('a client that leaves mid-upload aborts the upstream request', async () => {
    let upstreamReq: http.IncomingMessage | undefined;
    let bytes = 0;
    const upstream = await fixture.upstream((req) => {
      upstreamReq = req;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    });
    const done: { status: number }[] = [];
    const proxied = await fixture.proxyServer(() =>
      targetFor(upstream.url, { onRequestDone: (info) => done.push(info) }),
    );
    const client = http.request({
      host: '127.0.0.1',
      port: proxied.port,
      method: 'POST',
      path: '/upload',
      agent: false,
      headers: { 'content-length': 10 * 1024 * 1024 },
    });
    client.on('error', () => undefined);
    client.write(Buffer.alloc(256 * 1024));
    await eventually(() => bytes >= 256 * 1024);
    client.destroy();
    await eventually(() => upstreamReq?.destroyed === true);
    expect(upstreamReq!.complete).toBe(false);
    expect(done).toEqual([{ method: 'POST', path: '/upload', status: 499 }]);
    await noConnectionsLeft(proxied.server, upstream.server);
  });

  it('a client that leaves before the answer aborts the upstream request', async () => {
    const waiting: http.ServerResponse[] = [];
    const upstream = await fixture.upstream((_req, res) => waiting.push(res));
    const proxied = await fixture.proxyServer(() => targetFor(upstream.url));
    const client = http.get({ host: '127.0.0.1', port: proxied.port, path: '/slow', agent: false });
    client.on('error', () => undefined);
    await eventually(() => waiting.length === 1);
    client.destroy();
    await eventually(() => waiting[0]!.destroyed);
    await noConnectionsLeft(proxied.server, upstream.server);
  });

  it('a client that leaves mid-download aborts the upstream response', async () => {
    let upstreamRes: http.ServerResponse | undefined;
    const upstream = await fixture.upstream((_req, res) => {
      upstreamRes = res;
      res.writeHead(200, { 'content-length': 1024 * 1024 * 1024 });
      const piece = Buffer.alloc(64 * 1024);
      const more = (): void => {
        while (!res.destroyed && res.write(piece));
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    });
    const proxied = await fixture.proxyServer(() => targetFor(upstream.url));
    await new Promise<void>((resolve) => {
      const client = http.get(
        { host: '127.0.0.1', port: proxied.port, path: '/big', agent: false },
        (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > 1024 * 1024) {
              client.destroy();
              resolve();
            }
          });
        },
      );
      client.on('error', () => undefined);
    });
    await eventually(() => upstreamRes?.destroyed === true);
    expect(upstreamRes!.writableFinished).toBe(false);
    await noConnectionsLeft(proxied.server, upstream.server);
  });

  it('an upstream that breaks off its answer cuts the client response too', async () => {
    const upstream = await fixture.upstream((req, res) => {
      res.writeHead(200, { 'content-length': 1000 });
      res.write('only part of it');
      setTimeout(() => req.socket.destroy(), 50);
    });
    const proxied = await fixture.proxyServer(() => targetFor(upstream.url));
    const outcome = await new Promise<string>((resolve) => {
      const client = http.get(
        { host: '127.0.0.1', port: proxied.port, path: '/', agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve(`ended with ${body}`));
          res.on('aborted', () => resolve(`aborted after ${body}`));
          res.on('error', () => resolve(`aborted after ${body}`));
        },
      );
      client.on('error', (error) => resolve(`error ${error.message}`));
    });
    expect(outcome).toBe('aborted after only part of it');
    await noConnectionsLeft(proxied.server, upstream.server);
  });

  it('an upstream that drops the connection mid-upload gets the client a 502', async () => {
    const upstream = await fixture.upstream((req) => {
      req.once('data', () => req.socket.destroy());
    });
    const proxied = await fixture.proxyServer(() => targetFor(upstream.url));
    const status = await new Promise<number | string>((resolve) => {
      const client = http.request(
        {
          host: '127.0.0.1',
          port: proxied.port,
          method: 'POST',
          path: '/',
          agent: false,
          headers: { 'content-length': 10 * 1024 * 1024 },
        },
        (res) => {
          resolve(res.statusCode ?? 0);
          res.resume();
        },
      );
      client.on('error', (error) => resolve(error.message));
      client.write(Buffer.alloc(64 * 1024));
    });
    expect(status).toBe(502);
    await noConnectionsLeft(upstream.server);
  });
});
