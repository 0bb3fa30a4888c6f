import { connect, createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { b64, inviteUser, loginWithTotp } from '../../testing/identity.testkit.js';
import { startMetricsListener } from '../metrics/metrics-listener.js';
import { parseExposition, sampleValue } from '../metrics/exposition.testkit.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A test app listening on loopback port 0, and its base URL. */
async function listening(): Promise<{ app: TestApp; baseUrl: string }> {
  const app = await createTestApp();
  cleanups.push(() => app.close());
  const { port } = await app.listenOnLoopback();
  return { app, baseUrl: `http://127.0.0.1:${port}` };
}

/** A loopback port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Backend reads hang from now on; they answer again before the app closes (cleanups run last first: closing reads too). */
function hangReads(app: { backend: unknown }): void {
  const backend = app.backend as { get: (key: string) => Promise<unknown> };
  const read = backend.get.bind(app.backend);
  backend.get = () => new Promise(() => undefined);
  cleanups.push(async () => {
    backend.get = read;
  });
}

describe('GET /healthz and /readyz', () => {
  it('answer without a session: alive, and ready once storage and the caches are', async () => {
    const { baseUrl } = await listening();
    const health = await fetch(`${baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await ready.json()).toEqual({
      status: 'ok',
      checks: { backend: 'ok', caches: 'ok', drain: 'ok' },
    });
  });

  it('readyz is 503 naming the backend when storage is unreachable, and says no more', async () => {
    const { app, baseUrl } = await listening();
    const port = await closedPort();
    // The backend's reads now go to a closed loopback port, as a PostgreSQL that went away.
    const backend = app.backend as { get: (key: string) => Promise<null> };
    backend.get = () =>
      new Promise((_resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('error', reject);
        socket.once('connect', () => socket.destroy(new Error('unexpectedly open')));
      });
    const ready = await fetch(`${baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    const text = await ready.text();
    expect(JSON.parse(text)).toEqual({
      status: 'not_ready',
      checks: { backend: 'unreachable', caches: 'ok', drain: 'ok' },
      not_ready: ['backend'],
    });
    expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
    // Liveness does not depend on storage.
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  });

  it('readyz is 503 when a backend read hangs past the timeout', async () => {
    const { app, baseUrl } = await listening();
    hangReads(app);
    const started = Date.now();
    const ready = await fetch(`${baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: object }).checks).toMatchObject({
      backend: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('readyz says draining at once, without waiting on a backend that hangs', async () => {
    const { app, baseUrl } = await listening();
    hangReads(app);
    app.context.hub.drain();
    const started = Date.now();
    const ready = await fetch(`${baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      checks: { backend: 'skipped', drain: 'draining' },
      // Only what failed is named: the read that was not made is not one of them.
      not_ready: ['drain'],
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('GET /metrics on its own listener', () => {
  it('serves valid exposition text whose numbers move', async () => {
    const { app, baseUrl } = await listening();
    const metrics = await startMetricsListener({ host: '127.0.0.1', port: 0 }, () =>
      app.services.metrics.render(),
    );
    cleanups.push(() => metrics.stop());
    const scrape = async () => {
      const response = await fetch(`http://127.0.0.1:${metrics.address.port}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return parseExposition(await response.text());
    };
    // Completing the invite signs the user in too; the counts below start after it.
    const user = await inviteUser(app, 'metered');
    const before = await scrape();
    for (const name of [
      'postern_agent_tunnels',
      'postern_logins_total',
      'postern_backend_latency_seconds_count',
      'postern_audit_emit_latency_seconds_count',
      'postern_recording_bytes_total',
    ]) {
      expect(
        before.some((s) => s.name === name),
        name,
      ).toBe(true);
    }
    const logins = (samples: typeof before, result: string) =>
      sampleValue(samples, 'postern_logins_total', { result })!;
    expect(sampleValue(before, 'postern_agent_tunnels')).toBe(0);

    expect((await loginWithTotp(app, user)).statusCode).toBe(200);
    const wrong = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/sessions/web',
      headers: app.csrf.headers,
      payload: { user: 'metered', pass: b64('not the password'), second_factor_token: '000000' },
    });
    expect(wrong.statusCode).toBeGreaterThanOrEqual(400);
    await fetch(`${baseUrl}/readyz`);

    const after = await scrape();
    expect(logins(after, 'success')).toBe(logins(before, 'success') + 1);
    expect(logins(after, 'failure')).toBe(logins(before, 'failure') + 1);
    expect(sampleValue(after, 'postern_backend_latency_seconds_count')).toBeGreaterThan(
      sampleValue(before, 'postern_backend_latency_seconds_count')!,
    );
    expect(sampleValue(after, 'postern_audit_emit_latency_seconds_count')).toBeGreaterThan(
      sampleValue(before, 'postern_audit_emit_latency_seconds_count')!,
    );
    expect((await fetch(`http://127.0.0.1:${metrics.address.port}/other`)).status).toBe(404);
  });
});
