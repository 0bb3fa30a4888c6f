import { apiPaths, resourcesCheckResponseSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { createOpsRole } from '../../testing/ssh-login.testkit.js';

// `resources/check` answers what the resource lists would show the user: a server their roles
// reach, through a list their ACL lets them read.
let app: TestApp;
const admin = hostActor('test');

/** A role that reaches servers with these labels; `listable: false` denies listing them. */
const role = (name: string, nodeLabels: Record<string, string>, listable = true) =>
  app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name },
      spec: {
        allow: {
          node_labels: nodeLabels,
          logins: ['root'],
          rules: [{ resources: ['node'], verbs: ['list', 'read'] }],
        },
        ...(listable ? {} : { deny: { rules: [{ resources: ['node'], verbs: ['list'] }] } }),
      },
    }),
    admin,
  );

beforeAll(async () => {
  app = await createTestApp();
  await createOpsRole(app);
  await role('prod-only', { env: 'prod' });
  await role('dev-only', { env: 'dev' });
  await role('prod-no-list', { env: 'prod' }, false);
  await app.services.inventory.addOpenSsh(
    { name: 'web-1', addr: '127.0.0.1:1', labels: { env: 'prod' } },
    admin,
  );
});
afterAll(() => app?.close());

async function check(roles: string[] | null, cluster = app.config.clusterName) {
  const headers = roles ? await app.signIn(roles, `user-${roles.join('-')}`) : {};
  return app.server.inject({ url: apiPaths.resourcesCheck(cluster), headers });
}

describe('GET sites/{clusterId}/resources/check', () => {
  it('says yes when a list the user may read shows them a resource', async () => {
    for (const roles of [['ops'], ['prod-only']]) {
      const res = await check(roles);
      expect(res.statusCode, res.body).toBe(200);
      expect(resourcesCheckResponseSchema.parse(res.json())).toEqual({ hasResource: true });
    }
  });

  it('says no when their roles reach no resource, or no list is theirs to read', async () => {
    expect((await check(['dev-only'])).json()).toEqual({ hasResource: false });
    expect((await check(['prod-no-list'])).json()).toEqual({ hasResource: false });
  });

  it('needs a session (401), and names a cluster this proxy serves (404)', async () => {
    expect((await check(null)).statusCode).toBe(401);
    expect((await check(['ops'], 'elsewhere')).statusCode).toBe(404);
  });
});
