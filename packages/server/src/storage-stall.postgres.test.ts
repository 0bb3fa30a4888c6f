import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './testing/app-harness.testkit.js';
import { b64, inviteUser, type TestUser } from './testing/identity.testkit.js';
import { startPrivatePostgres, type PrivatePostgres } from './testing/private-postgres.testkit.js';

let pg: PrivatePostgres;
let first: TestApp;
let second: TestApp;
let carol: TestUser;

beforeAll(async () => {
  pg = await startPrivatePostgres();
  const storage = { type: 'postgres' as const, url: pg.url };
  const auditSpool = { retry: { firstDelayMs: 50, maxDelayMs: 500 } };
  first = await createTestApp({
    storage,
    audit: storage,
    auth: { second_factor: 'off' },
    auditSpool,
  });
  second = await createTestApp({ storage, audit: storage, auditSpool });
  carol = await inviteUser(first, 'carol', { device: 'none' });
}, 90_000);

afterAll(async () => {
  await first?.close();
  await second?.close();
  await pg?.destroy();
});

const signIn = () =>
  first.server.inject({
    method: 'POST',
    url: '/v1/webapi/sessions/web',
    headers: first.csrf.headers,
    payload: { user: 'carol', pass: b64(carol.password!) },
  });

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 20_000) {
  const giveUp = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > giveUp) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('PostgreSQL stopped and started again', () => {
  it('answers 503 fast while it is down, keeps ping fast, and recovers with watches', async () => {
    await pg.stop();
    try {
      let pingMax = 0;
      const started = performance.now();
      const refused = signIn();
      for (let n = 0; n < 20; n++) {
        const t = performance.now();
        const ping = await first.server.inject('/v1/webapi/ping');
        pingMax = Math.max(pingMax, performance.now() - t);
        expect(ping.statusCode).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const answer = await refused;
      expect(performance.now() - started).toBeLessThan(5000);
      expect(answer.statusCode).toBe(503);
      expect(answer.json().error).toEqual({
        code: 'storage_busy',
        message: 'storage busy, try again in a moment',
      });
      expect(pingMax).toBeLessThan(250);
      // An audit event while the database is down is kept in the spool, not lost.
      await first.audit.emit({ event: 'exec', code: 'T3002I', user: 'carol', command: 'uptime' });
    } finally {
      await pg.start();
    }

    const back = await eventually(signIn, (res) => res.statusCode === 200);
    expect(back.statusCode).toBe(200);

    // The first app's lock watch failed with the connection; it must list and watch again.
    const kim = await first.signIn(['access'], 'kim');
    const sites = () => first.server.inject({ url: '/v1/webapi/sites', headers: kim });
    expect((await sites()).statusCode).toBe(200);
    const admin = await second.signIn(['editor'], 'root');
    const created = await second.server.inject({
      method: 'PUT',
      url: '/v1/webapi/sites/test-cluster/locks',
      headers: admin,
      payload: { targets: { user: 'kim' }, message: 'after the restart' },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect((await eventually(sites, (res) => res.statusCode === 403)).statusCode).toBe(403);

    // The event emitted while the database was down is stored, with the degraded event.
    const stored = await eventually(
      () =>
        first.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 100 }),
      (found) => found.events.some((e) => e.code === 'TPOS070W'),
    );
    expect(stored.events.map((e) => e.code)).toEqual(
      expect.arrayContaining(['T3002I', 'TPOS070W']),
    );
  }, 90_000);
});
