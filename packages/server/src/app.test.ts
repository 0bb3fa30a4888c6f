import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterListSchema, errorBodySchema, pingResponseSchema } from '@postern/contracts';
import { createTestApp, type TestApp } from './testing/app-harness.testkit.js';
import { serverVersion } from './version.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

describe('web API basics', () => {
  it('answers ping without a session, with auth preferences and the server version', async () => {
    const res = await app.server.inject('/v1/webapi/ping');
    expect(res.statusCode).toBe(200);
    const ping = pingResponseSchema.parse(res.json());
    expect(ping.server_version).toBe(serverVersion);
    expect(ping.cluster_name).toBe('test-cluster');
    expect(ping.auth.second_factor).toBe('on');
    expect(ping.proxy.ssh.public_addr).toBe('proxy.test:3023');
  });

  it('gives a JSON 404 with a catalogue code for unknown API paths and methods', async () => {
    for (const [method, url] of [
      ['GET', '/v1/webapi/nope'],
      ['DELETE', '/v1/webapi/ping'],
      ['GET', '/v1/webapi/sites/x/y/z'],
    ] as const) {
      const res = await app.server.inject({ method, url });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(errorBodySchema.parse(res.json()).error.code).toBe('not_found');
    }
  });

  it('lists the local cluster for a signed-in user', async () => {
    const headers = await app.signIn(['access']);
    const res = await app.server.inject({ url: '/v1/webapi/sites', headers });
    expect(res.statusCode).toBe(200);
    const [cluster, ...rest] = clusterListSchema.parse(res.json());
    expect(rest).toEqual([]);
    expect(cluster).toMatchObject({
      name: 'test-cluster',
      status: 'online',
      nodeCount: 0,
      publicURL: 'proxy.test:3080',
      proxyVersion: serverVersion,
      authVersion: serverVersion,
    });
  });

  it('rejects a valid cookie with a wrong or missing bearer (the CSRF defence)', async () => {
    const headers = await app.signIn(['editor']);
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${'0'.repeat(64)}`]) {
      const res = await app.server.inject({
        url: '/v1/webapi/sites',
        headers: { cookie: headers.cookie, ...(authorization ? { authorization } : {}) },
      });
      expect(res.statusCode).toBe(401);
    }
  });

  it('rejects an expired session', async () => {
    const session = await app.services.sessions.create('bob', ['editor'], 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await app.server.inject({
      url: '/v1/webapi/sites',
      headers: {
        cookie: `__Host-session=${session.id}`,
        authorization: `Bearer ${session.bearerToken}`,
      },
    });
    expect(res.statusCode).toBe(401);
  });

  it('accepts console usage events and rejects malformed ones with a clear message', async () => {
    const headers = await app.signIn(['access']);
    const ok = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/capture',
      headers,
      payload: { event: 'pageview', path: '/web/clusters' },
    });
    expect(ok.json()).toEqual({ message: 'ok' });
    const bad = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/capture',
      headers,
      payload: { path: 3 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/event/);
  });

  it('accepts usage events from a page before sign-in, checked the same, limited per address', async () => {
    const limited = await createTestApp({ auth: { login_rate_limit: 3 } });
    try {
      const post = (payload: object) =>
        limited.server.inject({ method: 'POST', url: '/v1/webapi/precapture', payload });
      const ok = await post({ event: 'pageview', path: '/web/login' });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ message: 'ok' });
      const bad = await post({ event: '' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.message).toMatch(/event/);
      expect((await post({ event: 'pageview' })).statusCode).toBe(200);
      expect((await post({ event: 'pageview' })).statusCode).toBe(429);
      // The signed-in variant still wants a session.
      const anonymous = await limited.server.inject({
        method: 'POST',
        url: '/v1/webapi/capture',
        payload: { event: 'pageview' },
      });
      expect(anonymous.statusCode).toBe(401);
    } finally {
      await limited.close();
    }
  });

  it('answers malformed JSON with a 400, not a stack trace', async () => {
    const headers = await app.signIn(['access']);
    const res = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/capture',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"event":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toMatch(/at .*\.js:\d+/);
    expect(res.json().error.code).toBe('bad_parameter');
  });
});
