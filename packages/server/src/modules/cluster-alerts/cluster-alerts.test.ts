import { clusterAlertsResponseSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { buildClusterAlerts, type ClusterAlertsService } from './index.js';

let app: TestApp;
let alerts: ClusterAlertsService;
const admin = hostActor('admin');
const alertsUrl = '/v1/webapi/sites/test-cluster/alerts';

beforeAll(async () => {
  app = await createTestApp();
  alerts = buildClusterAlerts({
    backend: app.backend,
    audit: app.audit,
    now: () => app.clock.now(),
  });
});
afterAll(() => app.close());

const listAs = async (headers: Record<string, string>) => {
  const res = await app.server.inject({ url: alertsUrl, headers });
  expect(res.statusCode, res.body).toBe(200);
  return clusterAlertsResponseSchema.parse(res.json()).alerts;
};

describe('cluster alerts', () => {
  it('needs a session, and shows every signed-in user the alerts in force, most severe first', async () => {
    expect((await app.server.inject({ url: alertsUrl })).statusCode).toBe(401);
    const low = await alerts.create({ message: 'Lunch is served' }, admin);
    const high = await alerts.create(
      { message: 'Maintenance at 22:00', severity: 'high', link: 'https://status.example.com' },
      admin,
    );
    // A user whose roles grant nothing at all still reads them: they are posted for everyone.
    const nobody = await app.signIn([], 'nobody');
    const shown = await listAs(nobody);
    expect(shown.map((alert) => [alert.spec.message, alert.spec.severity])).toEqual([
      ['Maintenance at 22:00', 10],
      ['Lunch is served', 0],
    ]);
    expect(shown[0]!.metadata.labels).toEqual({
      'teleport.internal/link': 'https://status.example.com',
    });
    await alerts.remove(high.metadata.name, admin);
    await alerts.remove(low.metadata.name, admin);
    expect(await listAs(nobody)).toEqual([]);
  });

  it('takes an alert down once its time is up', async () => {
    const brief = await alerts.create({ message: 'Deploy freeze', ttl: '1h' }, admin);
    const headers = await app.signIn(['access'], 'ann');
    expect((await listAs(headers)).map((alert) => alert.metadata.name)).toEqual([
      brief.metadata.name,
    ]);
    app.clock.advance(2 * 3600_000);
    // A new session: the old one ended with the hour, too.
    expect(await listAs(await app.signIn(['access'], 'ann'))).toEqual([]);
  });

  it('refuses an alert without words, with an unsafe link or a bad time', async () => {
    const refusals: [object, RegExp][] = [
      [{ message: '   ' }, /needs a message/],
      [{ message: 'x'.repeat(1001) }, /at most 1000/],
      [{ message: 'hi', link: 'javascript:alert(1)' }, /http:\/\/ or https:\/\//],
      [{ message: 'hi', ttl: 'soon' }, /^ttl:/],
      [{ message: 'hi', severity: 'urgent' }, /^severity:/],
    ];
    for (const [input, why] of refusals) {
      await expect(
        alerts.create(input as Parameters<typeof alerts.create>[0], admin),
        JSON.stringify(input),
      ).rejects.toThrow(why);
    }
    expect(await listAs(await app.signIn(['access'], 'bea'))).toEqual([]);
  });

  it('audits posting and removing, with who did it', async () => {
    const alert = await alerts.create({ message: 'Rotating the CA tonight' }, admin);
    await alerts.remove(alert.metadata.name, admin);
    await expect(alerts.remove(alert.metadata.name, admin)).rejects.toThrow(/not found/);
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(app.clock.now() + 864e5),
      limit: 100,
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        code: 'TAL00I',
        user: 'admin',
        name: alert.metadata.name,
        message: 'Rotating the CA tonight',
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ code: 'TAL01I', user: 'admin', name: alert.metadata.name }),
    );
  });
});
