import { afterEach, describe, expect, it } from 'vitest';
import { ProxyFixture, rawExchange, targetFor } from './proxy-fixture.testkit.js';

const fixture = new ProxyFixture();
afterEach(() => fixture.closeAll());

// A body framed both ways: a server that reads the length sees the "0\r\n\r\n" as the body's
// start and then a second request, GET /smuggled; one that reads the chunks sees one request.
const doublyFramed = [
  'POST /upload HTTP/1.1',
  'Host: app.proxy.test',
  'Content-Length: 5',
  'Transfer-Encoding: chunked',
  '',
  '0',
  '',
  'GET /smuggled HTTP/1.1',
  'Host: app.proxy.test',
  '',
  '',
].join('\r\n');

describe('request smuggling', () => {
  // Node's parser refuses it before the proxy runs; the answer is still a 400 and nothing leaves.
  it.each([
    ['a strict node:http server', false],
    ['a lenient one (insecureHTTPParser), where only the proxy stands in the way', true],
  ])(
    'a request with both Content-Length and Transfer-Encoding never reaches the upstream (%s)',
    async (_name, lenient) => {
      const upstream = await fixture.echoUpstream();
      const { port } = await fixture.proxyServer(
        () => targetFor(upstream.url),
        {},
        { insecureHTTPParser: lenient },
      );
      const answer = await rawExchange(port, doublyFramed);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).not.toMatch(/HTTP\/1\.1 200/);
      expect(upstream.seen).toHaveLength(0);
      expect(upstream.connections()).toBe(0);
    },
  );

  it('refuses a transfer coding it could not frame again', async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(
      () => targetFor(upstream.url),
      {},
      { insecureHTTPParser: true },
    );
    const answer = await rawExchange(
      port,
      'POST / HTTP/1.1\r\nHost: app.proxy.test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(upstream.connections()).toBe(0);
  });

  it('sends a chunked body on chunked, so the upstream reads exactly the one request', async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(() => targetFor(upstream.url));
    const answer = await rawExchange(
      port,
      'POST /a HTTP/1.1\r\nHost: app.proxy.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
        '5\r\nhello\r\n0\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]).toMatchObject({ url: '/a', body: 'hello' });
    expect(upstream.seen[0]!.headers['transfer-encoding']).toBe('chunked');
  });

  it('sends a body on a GET with its length, never unframed', async () => {
    const upstream = await fixture.echoUpstream();
    const { port } = await fixture.proxyServer(() => targetFor(upstream.url));
    const body = 'GET /smuggled HTTP/1.1\r\n\r\n';
    await rawExchange(
      port,
      `GET /a HTTP/1.1\r\nHost: app.proxy.test\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(upstream.seen.map((seen) => seen.url)).toEqual(['/a']);
    expect(upstream.seen[0]!.body).toBe(body);
  });
});
