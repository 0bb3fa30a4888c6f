import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { b64, defaultTestPassword } from '../../testing/identity.testkit.js';
import { totpCode } from '../../testing/totp.testkit.js';
import { bootstrapFirstAdmin, bootstrapKey, hostLogins } from './first-admin.js';

const tokenOf = (url: string) => url.split('/').pop()!;

/** Opens the invite as the console does and sets a password and an authenticator app. */
async function completeInvite(app: TestApp, tokenId: string) {
  const details = await app.server.inject({ url: `/v1/webapi/users/password/token/${tokenId}` });
  const res = await app.server.inject({
    method: 'PUT',
    url: '/v1/webapi/users/password/token',
    headers: app.csrf.headers,
    payload: {
      token: tokenId,
      password: b64(defaultTestPassword),
      second_factor_token: totpCode(details.json().totpSecret as string, app.clock.now()),
      deviceName: 'phone',
    },
  });
  expect(res.statusCode).toBe(200);
}

describe('the first admin', () => {
  it('is created once, on a fresh cluster, with a one-time invite link', async () => {
    const app = await createTestApp();
    try {
      const invite = await bootstrapFirstAdmin(
        app.backend,
        app.services,
        'https://proxy.test:3080',
      );
      expect(invite?.url).toMatch(/^https:\/\/proxy\.test:3080\/web\/invite\/[0-9a-f]{32}$/);
      expect(invite).toMatchObject({ user: 'admin', renewed: false });
      const admin = await app.services.users.get('admin');
      expect(admin.spec.roles).toEqual(['access', 'auditor', 'editor']);
      const details = await app.server.inject({
        url: `/v1/webapi/users/password/token/${tokenOf(invite!.url)}`,
      });
      expect(details.json()).toMatchObject({ user: 'admin', type: 'invite' });
      // Once it has signed in, never again, even once every user is gone.
      await completeInvite(app, tokenOf(invite!.url));
      expect(await bootstrapFirstAdmin(app.backend, app.services, 'x')).toBeNull();
      await app.backend.delete('/users/admin');
      expect(await bootstrapFirstAdmin(app.backend, app.services, 'x')).toBeNull();
      expect(await app.services.users.store.get('admin')).toBeNull();
    } finally {
      await app.close();
    }
  });

  it('can log in on the built-in server: the OS user Postern runs as', async () => {
    expect(hostLogins()).toEqual([userInfo().username]);
    const app = await createTestApp();
    try {
      const invite = await bootstrapFirstAdmin(app.backend, app.services, 'https://p.test');
      expect(invite?.logins).toEqual([userInfo().username]);
      const admin = await app.services.users.get('admin');
      expect(admin.spec.traits.logins).toEqual([userInfo().username]);
      // The preset `access` role grants `{{internal.logins}}`, so the login is the admin's own.
      const { roleSet } = app.services.access.resolve('admin', admin.spec.roles);
      expect(roleSet.loginsFor({ labels: {} })).toContain(userInfo().username);
    } finally {
      await app.close();
    }
  });

  it('gets a fresh link at every start until it signs in; the old one stops working', async () => {
    const app = await createTestApp();
    try {
      const first = await bootstrapFirstAdmin(app.backend, app.services, 'https://p.test', ['me']);
      // Its link expired unused (an hour later): the next start prints a new one.
      app.clock.advance(2 * 3600_000);
      const again = await bootstrapFirstAdmin(app.backend, app.services, 'https://p.test');
      expect(again).toMatchObject({ user: 'admin', renewed: true, logins: ['me'] });
      expect(tokenOf(again!.url)).not.toBe(tokenOf(first!.url));
      expect(Date.parse(again!.expiry)).toBeGreaterThan(app.clock.now());
      // A link still valid is replaced too: only the newest printed link works.
      const third = await bootstrapFirstAdmin(app.backend, app.services, 'https://p.test');
      const old = await app.server.inject({
        url: `/v1/webapi/users/password/token/${tokenOf(again!.url)}`,
      });
      expect(old.statusCode).toBe(404);
      await completeInvite(app, tokenOf(third!.url));
      expect(await bootstrapFirstAdmin(app.backend, app.services, 'https://p.test')).toBeNull();
    } finally {
      await app.close();
    }
  });

  it('is not created where users exist already', async () => {
    const app = await createTestApp();
    try {
      await app.services.users.create({ name: 'old', roles: ['editor'] }, 'test');
      expect(await bootstrapFirstAdmin(app.backend, app.services, 'x')).toBeNull();
      expect(await app.backend.get(bootstrapKey)).not.toBeNull();
      expect(await app.services.users.store.get('admin')).toBeNull();
      expect(await bootstrapFirstAdmin(app.backend, app.services, 'x')).toBeNull();
    } finally {
      await app.close();
    }
  });
});
