import net from 'node:net';
import { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, ProxyFixture, send, targetFor } from './proxy-fixture.testkit.js';

const fixture = new ProxyFixture();
afterEach(() => fixture.closeAll());

describe('AppProxy.forward over a connect function', () => {
  it('sends each request over the stream connect returns, never pooled', async () => {
    const upstream = await fixture.echoUpstream();
    let dials = 0;
    const { port } = await fixture.proxyServer(() =>
      // The upstream URL names a host nobody dials: the stream is the only way there.
      targetFor('http://app.behind.agent:9999/base', {
        connect: () => {
          dials++;
          return net.connect(upstream.port, '127.0.0.1');
        },
      }),
    );
    for (let i = 0; i < 3; i++) expect((await send(port, `/r${i}`)).status).toBe(200);
    expect(dials).toBe(3);
    expect(upstream.connections()).toBe(3);
    expect(upstream.seen.map((seen) => seen.url)).toEqual(['/base/r0', '/base/r1', '/base/r2']);
    expect(upstream.seen[0]!.headers.host).toBe('app.behind.agent:9999');
  });

  it('works over any Duplex, not only a socket (a tunnel gives a stream of its own)', async () => {
    const upstream = await fixture.echoUpstream();
    const streams: Duplex[] = [];
    const { port } = await fixture.proxyServer(() =>
      targetFor('http://app.behind.agent', {
        connect: () => {
          const socket = net.connect(upstream.port, '127.0.0.1');
          const stream = Duplex.from({ readable: socket, writable: socket });
          stream.on('close', () => socket.destroy());
          streams.push(stream);
          return stream;
        },
      }),
    );
    for (let i = 0; i < 2; i++) {
      const answer = await send(port, '/d', { method: 'POST', body: 'over a duplex' });
      expect(JSON.parse(answer.body)).toMatchObject({ url: '/d', body: 'over a duplex' });
    }
    // Each stream is done with once its exchange is.
    await eventually(() => streams.length === 2 && streams.every((stream) => stream.destroyed));
  });

  it('waits for a stream given later, and answers 502 when the dial fails', async () => {
    const upstream = await fixture.echoUpstream();
    let fail = false;
    const { port } = await fixture.proxyServer(() =>
      targetFor('http://app.behind.agent', {
        connect: async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          if (fail) throw new Error('agent offline at 10.0.0.7');
          return net.connect(upstream.port, '127.0.0.1');
        },
      }),
    );
    expect((await send(port, '/')).status).toBe(200);
    fail = true;
    const failed = await send(port, '/');
    expect(failed.status).toBe(502);
    expect(failed.body).not.toContain('10.0.0.7');
  });

  it('closes a stream that arrives after the deadline', async () => {
    const upstream = await fixture.echoUpstream();
    let late: net.Socket | undefined;
    const { port } = await fixture.proxyServer(
      () =>
        targetFor('http://app.behind.agent', {
          connect: async () => {
            await new Promise((resolve) => setTimeout(resolve, 400));
            late = net.connect(upstream.port, '127.0.0.1');
            return late;
          },
        }),
      { upstreamTimeoutMs: 100 },
    );
    expect((await send(port, '/')).status).toBe(504);
    await eventually(() => late?.destroyed === true);
    expect(upstream.seen).toHaveLength(0);
  });
});
