import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  type SignedInHeaders,
  type TestApp,
} from '../../testing/app-harness.testkit.js';
import { hostActor } from '../access/actor.js';

// The Servers list filters by the caller's roles before paging (RoleSet.canAccess), so a role
// that selects nodes by expression gives full pages and an exact count of what it may see.

let app: TestApp;
let viewer: SignedInHeaders;
const teams = ['payments', 'search', 'hr'];

beforeAll(async () => {
  app = await createTestApp();
  const host = hostActor('test');
  await app.services.roles.create(
    [
      'kind: role',
      'version: v7',
      'metadata:',
      '  name: team-servers',
      'spec:',
      '  allow:',
      '    logins: [ubuntu]',
      '    node_labels_expression: >-',
      '      contains(user.spec.traits["teams"], labels["team"]) &&',
      '      !regexp.match(labels["tier"], "^(db|vault)$")',
      '  deny:',
      '    node_labels_expression: labels.quarantine == "yes"',
      '',
    ].join('\n'),
    host,
  );
  await app.services.users.create(
    { name: 'vi', roles: ['team-servers'], traits: { teams: ['payments', 'search'] } },
    'test',
  );
  const admin = { name: 'test', roleSet: null };
  // Closed loopback ports: nothing is dialled, the nodes only need to be listed.
  for (let i = 0; i < 18; i++) {
    const labels: Record<string, string> = { team: teams[i % 3] as string };
    if (i % 4 === 0) labels.tier = 'db';
    if (i === 7) labels.quarantine = 'yes';
    await app.services.inventory.addOpenSsh(
      { name: `host-${String(i).padStart(2, '0')}`, addr: `127.0.0.${i + 1}:9`, labels },
      admin,
    );
  }
  viewer = await app.signIn(['team-servers'], 'vi');
});
afterAll(() => app.close());

/** What the role should see: its teams, not db tier, not quarantined. */
const expected = Array.from({ length: 18 }, (_, i) => i)
  .filter((i) => i % 3 !== 2 && i % 4 !== 0 && i !== 7)
  .map((i) => `host-${String(i).padStart(2, '0')}`);

describe('a listing filtered by a label expression', () => {
  it('is filtered before paging: full pages, an exact count, nothing hidden leaks', async () => {
    expect(expected.length).toBeGreaterThan(4);
    const seen: string[] = [];
    let startKey = '';
    do {
      const res = await app.server.inject({
        method: 'GET',
        url: `/v1/webapi/sites/-current-/nodes?limit=3&startKey=${encodeURIComponent(startKey)}`,
        headers: viewer,
      });
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json<{
        items: { hostname: string }[];
        startKey: string;
        totalCount: number;
      }>();
      expect(page.totalCount).toBe(expected.length);
      if (page.startKey) expect(page.items).toHaveLength(3);
      seen.push(...page.items.map((n) => n.hostname));
      startKey = page.startKey;
    } while (startKey);
    expect(seen.sort()).toEqual(expected);
  });
});
