import { describe, expect, it } from 'vitest';
import type { ProxyTarget } from './proxy-target.js';
import { upstreamRequestHeaders } from './request-headers.js';
import { downstreamResponseHeaders } from './response-headers.js';

const target: ProxyTarget = {
  upstream: new URL('http://127.0.0.1:8080/base'),
  insecureSkipVerify: false,
  publicHost: 'grafana.proxy.example.com',
  publicPort: '',
  setHeaders: { 'X-Postern-Jwt': 'signed', 'x-webauth-user': 'alice' },
  stripHeaders: ['x-postern-jwt', 'x-postern-user'],
  stripCookies: ['__Host-postern_app'],
  redirectHosts: [],
};

const request = (headers: Record<string, string[]>, more: { upgrade?: boolean } = {}) =>
  upstreamRequestHeaders(headers, {
    target,
    clientAddress: '::ffff:10.1.2.3',
    framing: { kind: 'none' },
    upgrade: more.upgrade ?? false,
  });

describe('upstreamRequestHeaders', () => {
  it('removes hop-by-hop headers and those Connection names', () => {
    const headers = request({
      connection: ['keep-alive, X-Hop'],
      'x-hop': ['1'],
      'keep-alive': ['timeout=5'],
      'proxy-connection': ['keep-alive'],
      'proxy-authorization': ['Basic eA=='],
      te: ['trailers'],
      trailer: ['X-Sum'],
      'transfer-encoding': ['chunked'],
      upgrade: ['h2c'],
      'http2-settings': ['AAMAAABkAARAAAAAAAIAAAAA'],
      expect: ['100-continue'],
      accept: ['text/html', 'application/json'],
    });
    expect(Object.keys(headers).sort()).toEqual(
      [
        'accept',
        'host',
        'x-forwarded-for',
        'x-forwarded-host',
        'x-forwarded-port',
        'x-forwarded-proto',
        'x-postern-jwt',
        'x-webauth-user',
      ].sort(),
    );
    expect(headers.accept).toEqual(['text/html', 'application/json']);
  });

  it('keeps Upgrade on an upgrade request, with Connection: Upgrade only', () => {
    const headers = request(
      { connection: ['Upgrade, X-Hop'], upgrade: ['websocket'], 'x-hop': ['1'] },
      { upgrade: true },
    );
    expect(headers.upgrade).toEqual(['websocket']);
    expect(headers.connection).toEqual(['Upgrade']);
    expect(headers['x-hop']).toBeUndefined();
  });

  it("sends the upstream's Host and states the client itself, replacing any forwarding claims", () => {
    const headers = request({
      host: ['grafana.proxy.example.com'],
      forwarded: ['for=1.1.1.1'],
      'x-forwarded-for': ['1.1.1.1'],
      'x-forwarded-host': ['evil.example'],
      X_Forwarded_Proto: ['http'],
      'x-forwarded-prefix': ['/admin'],
      'x-real-ip': ['1.1.1.1'],
    });
    expect(headers).toEqual({
      host: ['127.0.0.1:8080'],
      'x-forwarded-for': ['10.1.2.3'],
      'x-forwarded-host': ['grafana.proxy.example.com'],
      'x-forwarded-proto': ['https'],
      'x-forwarded-port': ['443'],
      'x-postern-jwt': ['signed'],
      'x-webauth-user': ['alice'],
    });
  });

  it('strips identity headers under any spelling, then sets its own', () => {
    const headers = request({
      'x-postern-jwt': ['forged', 'forged again'],
      x_postern_jwt: ['forged'],
      'x-postern-user': ['root'],
      X_Postern_User: ['root'],
      'x-webauth_user': ['root'],
    });
    expect(headers['x-postern-jwt']).toEqual(['signed']);
    expect(headers['x-webauth-user']).toEqual(['alice']);
    for (const name of ['x_postern_jwt', 'x-postern-user', 'X_Postern_User', 'x-webauth_user']) {
      expect(headers[name]).toBeUndefined();
    }
  });

  it("removes the proxy's own cookies and joins the rest into one Cookie line", () => {
    expect(request({ cookie: ['a=1; __Host-postern_app=secret', 'b=2'] }).cookie).toEqual([
      'a=1; b=2',
    ]);
    expect(request({ cookie: ['__Host-postern_app=secret'] }).cookie).toBeUndefined();
  });

  it('frames the body itself', () => {
    const framed = (framing: Parameters<typeof upstreamRequestHeaders>[1]['framing']) =>
      upstreamRequestHeaders(
        { 'content-length': ['99'], 'transfer-encoding': ['chunked'] },
        {
          target,
          clientAddress: undefined,
          framing,
          upgrade: false,
        },
      );
    expect(framed({ kind: 'length', length: '12' })['content-length']).toEqual(['12']);
    expect(framed({ kind: 'length', length: '12' })['transfer-encoding']).toBeUndefined();
    expect(framed({ kind: 'chunked' })['transfer-encoding']).toEqual(['chunked']);
    expect(framed({ kind: 'none' })['content-length']).toBeUndefined();
    expect(framed({ kind: 'none' })['x-forwarded-for']).toBeUndefined();
  });
});

describe('downstreamResponseHeaders', () => {
  const rules = { ...target, basePath: '/base' };

  it('removes hop-by-hop headers and rewrites Location and every Set-Cookie', () => {
    const headers = downstreamResponseHeaders(
      {
        connection: ['keep-alive, x-internal'],
        'x-internal': ['1'],
        'keep-alive': ['timeout=5'],
        'transfer-encoding': ['chunked'],
        'proxy-authenticate': ['Basic'],
        trailer: ['x-sum'],
        upgrade: ['h2c'],
        location: ['http://127.0.0.1:8080/base/home'],
        'set-cookie': ['a=1; Domain=internal; Path=/base', 'b=2'],
        'content-type': ['text/html'],
      },
      rules,
      { upgraded: false },
    );
    expect(headers).toEqual({
      location: ['https://grafana.proxy.example.com/home'],
      'set-cookie': ['a=1; Path=/', 'b=2'],
      'content-type': ['text/html'],
    });
  });

  it('keeps Upgrade on a 101', () => {
    const headers = downstreamResponseHeaders(
      { connection: ['Upgrade'], upgrade: ['websocket'], 'sec-websocket-accept': ['abc'] },
      rules,
      { upgraded: true },
    );
    expect(headers).toEqual({
      upgrade: ['websocket'],
      connection: ['Upgrade'],
      'sec-websocket-accept': ['abc'],
    });
  });
});
