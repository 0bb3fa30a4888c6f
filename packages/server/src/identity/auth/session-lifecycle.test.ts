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
    // The old session answers requests in flight for a moment, then it is gone.
    expect((await status(first.headers)).statusCode).toBe(200);
    app.clock.advance(31_000);
    expect((await status(first.headers)).statusCode).toBe(401);
    expect((await renew(first.headers)).statusCode).toBe(401);
  });

  it('answers a renewal asked again (its answer was lost) with the same session, within the grace', async () => {
    const ida = await inviteUser(app, 'ida');
    const lost = await renew(ida.headers);
    expect(lost.statusCode).toBe(200);
    app.clock.advance(10_000);
    const again = await renew(ida.headers);
    expect(again.statusCode, again.body).toBe(200);
    expect(sessionHeaders(app, again)).toEqual(sessionHeaders(app, lost));
    // The bearer's life starts again, as with any renewal: the tab must last to its next check.
    expect(again.json().expires_in).toBe(20);
    // Renewed once more meanwhile by the tab that did hear: the old cookie follows both renewals.
    const twice = await renew(sessionHeaders(app, lost));
    expect((await renew(ida.headers)).json().token).toBe(twice.json().token);
  });

  it('takes the old bearer with the new cookie for the grace (the answer set the cookie, then was lost)', async () => {
    const eva = await inviteUser(app, 'eva');
    const renewed = sessionHeaders(app, await renew(eva.headers));
    const mixed = { ...renewed, authorization: eva.headers.authorization };
    app.clock.advance(10_000);
    expect((await status(mixed)).statusCode).toBe(200);
    const again = await renew(mixed);
    expect(again.statusCode, again.body).toBe(200);
    expect((await status(sessionHeaders(app, again))).statusCode).toBe(200);
    // Only for the grace, and never a bearer from another session.
    app.clock.advance(21_000);
    expect((await status(mixed)).statusCode).toBe(401);
    const other = await inviteUser(app, 'finn');
    expect(
      (await status({ ...renewed, authorization: other.headers.authorization })).statusCode,
    ).toBe(401);
  });

  it('gives two racing renewals one and the same successor, so a session never forks', async () => {
    const ray = await inviteUser(app, 'ray');
    const results = await Promise.all([renew(ray.headers), renew(ray.headers)]);
    expect(results.map((res) => res.statusCode)).toEqual([200, 200]);
    const [a, b] = results.map((res) => sessionHeaders(app, res));
    expect(a).toEqual(b);
    // The loser's would-be successor was removed: only the old and the new session exist.
    const { items } = await app.backend.list({ prefix: '/web_sessions/' });
    const rays = items.filter((item) => JSON.parse(item.value).user === 'ray');
    expect(rays).toHaveLength(2);
  });

  it('never stores a session id (the cookie), not even the successor a renewal points to', async () => {
    const una = await inviteUser(app, 'una');
    const renewed = sessionHeaders(app, await renew(una.headers));
    const { items } = await app.backend.list({ prefix: '/web_sessions/' });
    const stored = items.map((item) => item.value).join('\n');
    for (const headers of [una.headers, renewed]) {
      const id = /__Host-session=([0-9a-f]{64})/.exec(headers.cookie)![1]!;
      expect(stored).not.toContain(id);
    }
  });

  it('signing out with the cookie from before a renewal ends the renewed session too', async () => {
    const ola = await inviteUser(app, 'ola');
    const renewed = sessionHeaders(app, await renew(ola.headers));
    const res = await app.server.inject({
      method: 'DELETE',
      url: '/v1/webapi/sessions/web',
      headers: ola.headers,
    });
    expect(res.statusCode).toBe(200);
    expect((await status(renewed)).statusCode).toBe(401);
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
