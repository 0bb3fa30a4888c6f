import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliDataDir } from '../../cli/cli-harness.testkit.js';
import { createFromFile } from '../../cli/resources.commands.js';
import { Moderation } from '../../modules/sessions/moderation.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { userAcl } from './acl.js';
import { RoleSet } from './role-set.js';
import { parseRoleYaml, type Role } from './index.js';

// Roles written for the reference system (its presets and examples from its documentation, typed
// by hand into reference-roles/) load as they are through `postern create -f` and through the
// Roles screen's call, and mean what the documentation says.
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'reference-roles');
const { run } = cliDataDir();
let app: TestApp;
let files: string[];
const roles = new Map<string, Role>();

beforeAll(async () => {
  app = await createTestApp();
  files = (await readdir(dir)).filter((name) => name.endsWith('.yaml')).sort();
  for (const file of files) {
    const text = await readFile(path.join(dir, file), 'utf8');
    for (const doc of parseAllDocuments(text)) {
      const { role } = parseRoleYaml(doc.toString());
      roles.set(role.metadata.name, role);
    }
  }
});
afterAll(() => app.close());

const setOf = (names: string[], traits: Record<string, string[]> = {}) =>
  new RoleSet(
    names.map((name) => roles.get(name)!),
    { name: 'u', traits },
  );

describe('reference roles', () => {
  it('load through postern create -f', async () => {
    for (const file of files) {
      const lines = await run((ctx, print) =>
        createFromFile(ctx, path.join(dir, file), { force: true }, print),
      );
      expect(lines.join('\n'), file).toMatch(/^role \S+ has been (created|overwritten)/m);
    }
  });

  it("load through the Roles screen's call (POST /v1/webapi/roles)", async () => {
    const headers = await app.signIn(['editor'], 'admin');
    for (const [name, role] of roles) {
      // Under a name of its own: the presets exist already under theirs.
      const copy = { ...role, metadata: { ...role.metadata, name: `copy-of-${name}` } };
      const res = await app.server.inject({
        method: 'POST',
        url: '/v1/webapi/roles',
        headers,
        payload: { content: JSON.stringify(copy) },
      });
      expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
    }
  });

  it("the access preset reaches everything with the user's own traits", () => {
    const set = setOf(['access'], { logins: ['ubuntu'], db_users: ['app'] });
    expect(set.canAccess('node', { labels: { env: 'prod' } })).toBe(true);
    expect(set.loginsFor({ labels: {} })).toEqual(['ubuntu']);
    expect(set.dbUsersFor({ labels: { any: 'x' } })).toMatchObject({ values: ['app'] });
    expect(set.options()).toMatchObject({ sshFileCopy: true, portForwarding: true });
    expect(userAcl(set).events.list).toBe(true);
  });

  it('the auditor preset reads events and sessions, nothing else', () => {
    const acl = userAcl(setOf(['auditor']));
    expect(acl.events.list).toBe(true);
    expect(acl.recordedSessions.read).toBe(true);
    expect(acl.users.list).toBe(false);
    expect(acl.nodes.list).toBe(false);
  });

  it('prod-access waits for a prod-auditor moderator', () => {
    const moderation = new Moderation(setOf(['prod-access']).moderationPolicySets('ssh'), 'u');
    expect(moderation.required).toBe(true);
    expect(moderation.fulfilledBy([{ user: 'a', roles: ['prod-auditor'], mode: 'observer' }])).toBe(
      false,
    );
    expect(
      moderation.fulfilledBy([{ user: 'a', roles: ['prod-auditor'], mode: 'moderator' }]),
    ).toBe(true);
  });

  it('contractors request dba with a reason, two approvals, for up to 8h; admins review', () => {
    const contractor = setOf(['contractor']);
    expect(contractor.requestableRoles([...roles.keys()])).toEqual(['dba']);
    expect(contractor.requestThresholds('dba')).toEqual([
      { name: 'threshold-1', approve: 2, deny: 1 },
    ]);
    expect(contractor.requestMaxDurationMs(['dba'])).toBe(8 * 3600_000);
    expect(contractor.options()).toMatchObject({
      requestAccess: 'reason',
      requestPrompt: 'Please provide your ticket ID',
    });
    expect(setOf(['admin-reviewer']).mayReviewRoles(['dba'])).toBe(true);
  });

  it("the hardened role's options are all enforced values", () => {
    expect(setOf(['hardened']).options()).toMatchObject({
      maxConnections: 3,
      maxSessions: 10,
      maxKubernetesConnections: 5,
      sshFileCopy: false,
      disconnectExpiredCert: true,
      pinSourceIp: true,
      lockingMode: 'strict',
    });
  });
});
