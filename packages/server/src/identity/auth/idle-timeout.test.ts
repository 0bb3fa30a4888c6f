import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser } from '../../testing/identity.testkit.js';

let app: TestApp;
beforeAll(async () => {
  // A long bearer keeps these tests about inactivity alone.
  app = await createTestApp({ auth: { idle_timeout: '10m', bearer_ttl: '1h' } });
});
afterAll(() => app.close());

const status = (headers: Record<string, string>, lastActive?: number) =>
  app.server.inject({
    url: '/v1/webapi/user/status',
    headers: { ...headers, ...(lastActive ? { 'x-postern-last-active': String(lastActive) } : {}) },
  });
const sites = (headers: Record<string, string>) =>
  app.server.inject({ url: '/v1/webapi/sites', headers });

describe('auth.idle_timeout on the server', () => {
  it('tells the console the timeout in milliseconds', async () => {
    const ann = await inviteUser(app, 'ann');
    expect(ann.session.sessionInactiveTimeout).toBe(600_000);
  });

  it('ends a session idle longer than the timeout, and deletes it', async () => {
    const ida = await inviteUser(app, 'ida');
    app.clock.advance(9 * 60_000);
    expect((await sites(ida.headers)).statusCode).toBe(200);
    app.clock.advance(9 * 60_000);
    expect((await sites(ida.headers)).statusCode).toBe(200);
    app.clock.advance(10 * 60_000 + 1000);
    expect((await sites(ida.headers)).statusCode).toBe(401);
    // Gone for good: the index page no longer carries a bearer for the cookie either.
    app.clock.advance(-60_000);
    expect((await sites(ida.headers)).statusCode).toBe(401);
    app.clock.advance(60_000);
  });

  it('does not count the timer-driven status poll as activity', async () => {
    const pat = await inviteUser(app, 'pat');
    for (let minute = 0; minute < 8; minute += 2) {
      app.clock.advance(2 * 60_000);
      expect((await status(pat.headers)).statusCode).toBe(200);
    }
    app.clock.advance(3 * 60_000);
    expect((await status(pat.headers)).statusCode).toBe(401);
  });

  it('counts the last activity the console reports on its status poll', async () => {
    const ivo = await inviteUser(app, 'ivo');
    for (let minute = 0; minute < 30; minute += 5) {
      app.clock.advance(5 * 60_000);
      expect((await status(ivo.headers, app.clock.now() - 1000)).statusCode).toBe(200);
    }
    // A reported time in the future counts as now, not later.
    expect((await status(ivo.headers, app.clock.now() + 3_600_000)).statusCode).toBe(200);
    app.clock.advance(10 * 60_000 + 1000);
    expect((await status(ivo.headers)).statusCode).toBe(401);
  });

  it('counts loading a console page as activity', async () => {
    const pia = await inviteUser(app, 'pia');
    app.clock.advance(9 * 60_000);
    const page = await app.server.inject({
      url: '/web/clusters',
      headers: { cookie: pia.headers.cookie! },
    });
    expect(page.body).not.toContain('name="grv_bearer_token" content=""');
    app.clock.advance(9 * 60_000);
    expect((await status(pia.headers)).statusCode).toBe(200);
  });
});
