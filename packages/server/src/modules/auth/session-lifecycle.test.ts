import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser, sessionHeaders, type TestUser } from '../../testing/identity.testkit.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({
    auth: { bearer_ttl: '20s', session_ttl: '2h', idle_timeout: '10m' },
  });
});
afterAll(() => app.close());

const status = (headers: Record<string, string>) =>
  app.server.inject({ url: '/v1/webapi/user/status', headers });
const renew = (headers: Record<string, string>) =>
  app.server.inject({ method: 'POST', url: '/v1/webapi/sessions/web/renew', headers, payload: {} });

describe('the web session lifecycle', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await inviteUser(app, 'sam');
  });

  it('answers the status poll with ok for a live session', async () => {
    const res = await status(user.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'ok' });
    expect(user.session.expires_in).toBe(20);
    expect(user.session.sessionInactiveTimeout).toBe(600_000);
  });

  it('renews into a new cookie and bearer with the same end, and the old one fades out', async () => {
    const first = await inviteUser(app, 'rita');
    app.clock.advance(15_000);
    const res = await renew(first.headers);
    expect(res.statusCode, res.body).toBe(200);
    const next = sessionHeaders(app, res);
    expect(next.cookie).not.toBe(first.headers.cookie);
    expect(next.authorization).not.toBe(first.headers.authorization);
    expect(res.json().sessionExpires).toBe(first.session.sessionExpires);
    expect(res.json().expires_in).toBe(20);
    expect((await status(next)).statusCode).toBe(200);
    // The old session answers requests in flight for a moment, but cannot renew again.
    expect((await renew(first.headers)).statusCode).toBe(401);
    app.clock.advance(31_000);
    expect((await status(first.headers)).statusCode).toBe(401);
  });

  it('lets only one of two racing renewals win, so a session never forks', async () => {
    const ray = await inviteUser(app, 'ray');
    const results = await Promise.all([renew(ray.headers), renew(ray.headers)]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 401]);
  });

  it('keeps a user signed in across many bearer lifetimes by renewing', async () => {
    const kim = await inviteUser(app, 'kim');
    let headers = kim.headers;
    for (let round = 0; round < 5; round++) {
      app.clock.advance(15_000);
      const res = await renew(headers);
      expect(res.statusCode).toBe(200);
      headers = sessionHeaders(app, res);
    }
    expect((await status(headers)).statusCode).toBe(200);
    app.clock.advance(21_000);
    expect((await status(headers)).statusCode).toBe(401);
  });

  it('logs out: the session ends and the cookie is cleared', async () => {
    const lea = await inviteUser(app, 'lea');
    const res = await app.server.inject({
      method: 'DELETE',
      url: '/v1/webapi/sessions/web',
      headers: lea.headers,
    });
    expect(res.statusCode).toBe(200);
    const cleared = res.cookies.find((cookie) => cookie.name === '__Host-session');
    expect(cleared?.value).toBe('');
    expect((await status(lea.headers)).statusCode).toBe(401);
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(app.clock.now() + 1e9),
      limit: 500,
    });
    expect(events).toContainEqual(expect.objectContaining({ code: 'TPOS010I', user: 'lea' }));
  });

  it('refuses a mutation that carries the cookie but not the bearer', async () => {
    const max = await inviteUser(app, 'max');
    const { authorization: _bearer, ...cookieOnly } = max.headers;
    for (const [method, url] of [
      ['POST', '/v1/webapi/sessions/web/renew'],
      ['DELETE', '/v1/webapi/sessions/web'],
      ['PUT', '/v1/webapi/users/password'],
      ['POST', '/v1/webapi/capture'],
    ] as const) {
      const res = await app.server.inject({ method, url, headers: cookieOnly, payload: {} });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
    expect((await status(max.headers)).statusCode).toBe(200);
  });

  it('ends every session at auth.session_ttl, renewals notwithstanding', async () => {
    const tia = await inviteUser(app, 'tia');
    let headers = tia.headers;
    for (let minutes = 0; minutes < 118; minutes += 5) {
      app.clock.advance(5 * 60_000);
      await app.server.inject({ url: '/v1/webapi/sites', headers });
      const res = await renew(headers);
      if (res.statusCode !== 200) break;
      headers = sessionHeaders(app, res);
    }
    app.clock.advance(10 * 60_000);
    expect((await status(headers)).statusCode).toBe(401);
  });
});
