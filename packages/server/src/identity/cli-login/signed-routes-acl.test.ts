import { apiPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedHeaders } from '../../testing/signed-request.testkit.js';

/**
 * The CLI's signed listings, each behind CertRequestAuth.identifyAllowed: unsigned is 401, a
 * signed user whose roles lack the listing's ACL verb is 403, and one whose roles have it gets
 * the list. One table, so a signed route added later is one line here.
 */
const listings = [
  { name: 'postern ls', path: apiPaths.sshNodes, area: 'node' },
  { name: 'postern kube ls', path: apiPaths.kubeCatalog, area: 'kube_server' },
  { name: 'postern db ls', path: apiPaths.databaseCatalog, area: 'db_server' },
  { name: 'postern apps ls', path: apiPaths.appCatalog, area: 'app_server' },
  { name: 'postern request ls', path: apiPaths.cliAccessRequests, area: 'access_request' },
  { name: 'postern recordings ls', path: apiPaths.cliRecordings, area: 'session' },
  { name: 'postern sessions ls', path: apiPaths.cliActiveSessions, area: 'session_tracker' },
] as const;

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
  const role = (name: string, rules: unknown[]) =>
    app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name },
        spec: { allow: { rules } },
      }),
      hostActor('test'),
    );
  await role('no-listings', []);
  await role(
    'listings',
    listings.map(({ area }) => ({ resources: [area], verbs: ['list', 'read'] })),
  );
  await app.services.users.create({ name: 'nobody', roles: ['no-listings'] }, 'test');
  await app.services.users.create({ name: 'lister', roles: ['listings'] }, 'test');
});
afterAll(() => app?.close());

const get = (path: string, user?: string) =>
  app.server.inject({ url: path, headers: user ? signedHeaders(app, user, { path }) : {} });

describe("the CLI's signed listings", () => {
  for (const { name, path } of listings) {
    it(`${name}: 401 unsigned, 403 without the list verb, 200 with it`, async () => {
      expect((await get(path)).statusCode).toBe(401);
      const refused = await get(path, 'nobody');
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().error.code).toBe('access_denied');
      const allowed = await get(path, 'lister');
      expect(allowed.statusCode, allowed.body).toBe(200);
    });
  }
});
