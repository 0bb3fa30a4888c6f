import { mfaDeviceListSchema, userJsonSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser, loginWithTotp } from '../../testing/identity.testkit.js';

let app: TestApp;
let admin: Record<string, string>;
beforeAll(async () => {
  app = await createTestApp();
  await app.services.users.create({ name: 'root', roles: ['editor'] }, 'test');
  admin = await app.signIn(['editor'], 'root');
  // Manages users but may not create roles: it can grant only the roles it holds.
  await app.services.roles.create(
    `kind: role
version: v7
metadata: {name: user-manager}
spec:
  allow:
    rules: [{resources: [user], verbs: ['*']}]
`,
    { name: 'test', roleSet: null },
  );
});
afterAll(() => app.close());

const call = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  headers = admin,
) => app.server.inject({ method, url: `/v1/webapi${url}`, headers, payload: payload as object });

const auditOf = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 864e5), limit: 1000 })
  ).events.filter((event) => event.code === code);

const traits = {
  logins: ['ubuntu'],
  databaseUsers: ['reader'],
  databaseNames: ['orders'],
  kubeUsers: [],
  kubeGroups: ['viewers'],
  windowsLogins: ['Administrator'],
  awsRoleArns: ['arn:aws:iam::1:role/ro'],
};

describe('users admin', () => {
  it('creates a user without a password, with mapped traits, then an invite link', async () => {
    const res = await call('POST', '/users', { name: 'bob', roles: ['auditor', 'access'], traits });
    expect(res.statusCode, res.body).toBe(200);
    expect(userJsonSchema.parse(res.json())).toEqual({
      name: 'bob',
      roles: ['access', 'auditor'],
      authType: 'local',
      isLocal: true,
      traits,
    });
    const stored = (await app.services.users.store.get('bob'))!.user;
    expect(stored.spec.traits).toMatchObject({
      db_users: ['reader'],
      kubernetes_groups: ['viewers'],
    });
    expect((await app.services.users.store.credentials('bob')).passwordHash).toBeUndefined();
    const invite = await call('POST', '/users/password/token', { name: 'bob', type: 'invite' });
    expect(invite.statusCode).toBe(200);
    expect(await auditOf('T1002I')).toContainEqual(
      expect.objectContaining({ event: 'user.create', user: 'root', name: 'bob' }),
    );
  });

  it('lists users with sorted roles, and reads one', async () => {
    const list = await call('GET', '/users');
    expect(list.statusCode).toBe(200);
    expect(list.json().map((user: { name: string }) => user.name)).toEqual(['bob', 'root']);
    expect(list.json()[0].roles).toEqual(['access', 'auditor']);
    expect((await call('GET', '/users/bob')).json()).toMatchObject({ name: 'bob', traits });
    expect((await call('GET', '/users/ghost')).statusCode).toBe(404);
  });

  it('keeps the token routes reachable beside /users/:username', async () => {
    const { tokenId } = await app.services.tokens.create('bob', 'invite', undefined, 'test');
    const res = await app.server.inject({ url: `/v1/webapi/users/password/token/${tokenId}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ user: 'bob', tokenId });
  });

  it('updates roles and the traits given, and audits it', async () => {
    const res = await call('PUT', '/users', {
      name: 'bob',
      roles: ['access'],
      traits: { logins: ['bob', 'ubuntu'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      roles: ['access'],
      traits: { ...traits, logins: ['bob', 'ubuntu'] },
    });
    expect((await call('PUT', '/users', { name: 'ghost', roles: ['access'] })).statusCode).toBe(
      404,
    );
    expect(await auditOf('T1003I')).toContainEqual(
      expect.objectContaining({
        event: 'user.update',
        user: 'root',
        name: 'bob',
        roles: ['access'],
      }),
    );
  });

  it('leaves SSO users to their connector: no edit, no password link, but delete', async () => {
    const expires = new Date(Date.now() + 3600_000);
    await app.services.users.store.putSsoUser(
      {
        kind: 'user',
        version: 'v2',
        metadata: { name: 'sso-carol' },
        spec: {
          roles: ['access'],
          traits: { logins: ['carol'] },
          authType: 'sso',
          connector: { kind: 'oidc', name: 'okta' },
          createdAt: new Date().toISOString(),
        },
        status: {},
      },
      expires,
    );
    const edit = await call('PUT', '/users', { name: 'sso-carol', roles: ['editor'] });
    expect(edit.statusCode).toBe(400);
    expect(edit.json().error.message).toMatch(/sso-carol signs in through single sign-on/);
    const link = await call('POST', '/users/password/token', { name: 'sso-carol', type: 'reset' });
    expect(link.statusCode).toBe(400);
    expect((await call('GET', '/users/sso-carol')).json()).toMatchObject({
      roles: ['access'],
      authType: 'sso',
      isLocal: false,
    });
    expect((await call('DELETE', '/users/sso-carol')).statusCode).toBe(200);
  });

  it('refuses unknown roles, naming them', async () => {
    const res = await call('POST', '/users', { name: 'carl', roles: ['access', 'nope', 'zilch'] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('unknown roles: nope, zilch: create them first');
    const none = await call('POST', '/users', { name: 'carl', roles: [] });
    expect(none.statusCode).toBe(400);
  });

  it('lets nobody grant a role they could not create themselves', async () => {
    const manager = await app.signIn(['user-manager', 'access'], 'mona');
    const refused = await call(
      'POST',
      '/users',
      { name: 'eve', roles: ['access', 'editor'] },
      manager,
    );
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toBe(
      'you cannot grant roles you could not create yourself: editor',
    );
    const granted = await call('POST', '/users', { name: 'eve', roles: ['access'] }, manager);
    expect(granted.statusCode, granted.body).toBe(200);
    const raise = await call('PUT', '/users', { name: 'eve', roles: ['auditor'] }, manager);
    expect(raise.statusCode).toBe(403);
    // Keeping a role the manager does not hold grants nothing.
    await call('PUT', '/users', { name: 'bob', roles: ['access', 'auditor'] });
    const keep = await call('PUT', '/users', { name: 'bob', roles: ['auditor'] }, manager);
    expect(keep.statusCode, keep.body).toBe(200);
    // A reset link makes its user whoever opens it: only for users whose roles one could grant.
    const takeover = await call(
      'POST',
      '/users/password/token',
      { name: 'root', type: 'password' },
      manager,
    );
    expect(takeover.statusCode).toBe(403);
    expect(takeover.json().error.message).toMatch(/could not create yourself: editor$/);
    const reset = await call(
      'POST',
      '/users/password/token',
      { name: 'eve', type: 'password' },
      manager,
    );
    expect(reset.statusCode, reset.body).toBe(200);
  });

  it("lists a user's MFA devices for whoever may read the user: ids, names, never a secret", async () => {
    const yara = await inviteUser(app, 'yara', { roles: ['access'] });
    const [stored] = (await app.services.users.store.credentials('yara')).devices;
    const res = await call('GET', '/users/yara/mfa/devices');
    expect(res.statusCode, res.body).toBe(200);
    const devices = mfaDeviceListSchema.parse(res.json());
    expect(devices).toEqual([expect.objectContaining({ id: stored!.id, type: 'TOTP' })]);
    expect(res.body).not.toMatch(/secret|publicKey|credentialId/i);
    // The route's guard: signed out, and signed in without the users read verb.
    const signedOut = await app.server.inject({ url: '/v1/webapi/users/yara/mfa/devices' });
    expect(signedOut.statusCode).toBe(401);
    const own = await call('GET', '/users/yara/mfa/devices', undefined, yara.headers);
    expect(own.statusCode).toBe(403);
    expect((await call('GET', '/users/ghost/mfa/devices')).statusCode).toBe(404);
  });

  it('refuses to delete yourself', async () => {
    const res = await call('DELETE', '/users/root');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(
      'you cannot delete your own user: ask another administrator',
    );
  });

  it('deletes a user with their credentials and sessions, and audits it', async () => {
    const zoe = await inviteUser(app, 'zoe', { roles: ['access'] });
    expect(
      (await app.server.inject({ url: '/v1/webapi/sites', headers: zoe.headers })).statusCode,
    ).toBe(200);
    expect((await call('DELETE', '/users/zoe')).statusCode).toBe(200);
    expect(
      (await app.server.inject({ url: '/v1/webapi/sites', headers: zoe.headers })).statusCode,
    ).toBe(401);
    expect(await app.services.users.store.credentials('zoe')).toEqual({ devices: [] });
    expect((await loginWithTotp(app, zoe)).statusCode).toBe(403);
    expect((await call('DELETE', '/users/zoe')).statusCode).toBe(404);
    expect(await auditOf('T1004I')).toContainEqual(
      expect.objectContaining({ event: 'user.delete', user: 'root', name: 'zoe' }),
    );
  });

  it('filters the list per user where a rule has a where clause', async () => {
    await app.services.roles.create(
      `kind: role
version: v7
metadata: {name: self-reader}
spec:
  allow:
    rules:
      - resources: [user]
        verbs: [list, read]
        where: equals(resource.metadata.name, user.metadata.name)
`,
      { name: 'test', roleSet: null },
    );
    // bob has a record: his roles come from it, sessions or not.
    await app.services.users.update({ name: 'bob', roles: ['self-reader'] }, 'test');
    const headers = await app.signIn(['editor'], 'bob');
    const list = await call('GET', '/users', undefined, headers);
    expect(list.json().map((user: { name: string }) => user.name)).toEqual(['bob']);
    expect((await call('GET', '/users/root', undefined, headers)).statusCode).toBe(404);
    // So are the devices of a user the rule hides; their own are there.
    expect((await call('GET', '/users/root/mfa/devices', undefined, headers)).statusCode).toBe(404);
    expect((await call('GET', '/users/bob/mfa/devices', undefined, headers)).statusCode).toBe(200);
  });
});
