import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  b64,
  defaultTestPassword,
  inviteUser,
  loginWithKey,
  nextTotp,
  registerChallenge,
  type TestUser,
} from '../../testing/identity.testkit.js';
import { TestAuthenticator } from '../../testing/webauthn-authenticator.testkit.js';
import { webauthnCredentialKey } from '../mfa/credential-index.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const registeredAlready = {
  error: {
    code: 'already_exists',
    message: 'this key is registered already: a key can be registered once, to one user',
  },
  message: 'this key is registered already: a key can be registered once, to one user',
};

async function privilegeToken(user: TestUser): Promise<string> {
  const res = await app.server.inject({
    method: 'POST',
    url: '/v1/webapi/users/privilege/token',
    headers: user.headers,
    payload: { secondFactorToken: nextTotp(app, user.totpSecret!) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as string;
}

/** Account Settings' "add a hardware key": a privilege token, a challenge, the key's answer. */
async function addKey(user: TestUser, name: string, answer: (options: object) => unknown) {
  const tokenId = await privilegeToken(user);
  const publicKey = await registerChallenge(app, tokenId, 'webauthn', user.headers);
  return () =>
    app.server.inject({
      method: 'POST',
      url: '/v1/webapi/mfa/devices',
      headers: user.headers,
      payload: {
        tokenId,
        deviceName: name,
        deviceUsage: 'mfa',
        webauthnRegisterResponse: answer(publicKey),
      },
    });
}

const refusals = async () =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(app.clock.now() + 1e9), limit: 5000 })
  ).events.filter((event) => event.code === 'TPOS016W');

const devicesOf = async (name: string) =>
  (await app.services.users.store.credentials(name)).devices.map((device) => device.name);

describe('one WebAuthn credential, one user', () => {
  it("refuses another user's key on Account Settings, audits it, and the owner's key still works", async () => {
    const amy = await inviteUser(app, 'amy', { device: 'webauthn' });
    const ben = await inviteUser(app, 'ben');
    const add = await addKey(ben, 'borrowed', (options) =>
      amy.authenticator!.register(options as Record<string, unknown>, { reuse: 0 }),
    );
    const res = await add();
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(registeredAlready);
    expect(await devicesOf('ben')).toEqual(['phone']);
    expect(await refusals()).toContainEqual(
      expect.objectContaining({ user: 'ben', registered_to: 'amy', mfa_device_type: 'WebAuthn' }),
    );
    expect((await loginWithKey(app, amy)).statusCode).toBe(200);
  });

  it('refuses a key its own user registered already', async () => {
    const cat = await inviteUser(app, 'cat');
    const key = new TestAuthenticator(app.origin);
    const first = await addKey(cat, 'yubikey', (options) =>
      key.register(options as Record<string, unknown>),
    );
    expect((await first()).statusCode).toBe(200);
    const second = await addKey(cat, 'yubikey-again', (options) =>
      key.register(options as Record<string, unknown>, { reuse: 0 }),
    );
    expect((await second()).json()).toEqual(registeredAlready);
    expect(await devicesOf('cat')).toEqual(['phone', 'yubikey']);
  });

  it('refuses it on an invite too', async () => {
    const dan = await inviteUser(app, 'dan', { device: 'webauthn' });
    await app.services.users.create({ name: 'eve', roles: ['access'] }, 'test');
    const { tokenId } = await app.services.tokens.create('eve', 'invite', undefined, 'test');
    const publicKey = await registerChallenge(app, tokenId, 'webauthn', app.csrf.headers);
    const res = await app.server.inject({
      method: 'PUT',
      url: '/v1/webapi/users/password/token',
      headers: app.csrf.headers,
      payload: {
        token: tokenId,
        password: b64(defaultTestPassword),
        webauthnCreationResponse: dan.authenticator!.register(publicKey, { reuse: 0 }),
        deviceName: 'yubikey',
      },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(registeredAlready);
    expect(await devicesOf('eve')).toEqual([]);
    expect(await refusals()).toContainEqual(
      expect.objectContaining({ user: 'eve', registered_to: 'dan' }),
    );
  });

  it('lets only one of two registrations of one key at the same moment win', async () => {
    const fay = await inviteUser(app, 'fay');
    const gus = await inviteUser(app, 'gus');
    const key = new TestAuthenticator(app.origin);
    const forFay = await addKey(fay, 'shared', (options) =>
      key.register(options as Record<string, unknown>),
    );
    const forGus = await addKey(gus, 'shared', (options) =>
      key.register(options as Record<string, unknown>, { reuse: 0 }),
    );
    const results = await Promise.all([forFay(), forGus()]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    const holders = [
      ...(await devicesOf('fay')).filter((name) => name === 'shared').map(() => 'fay'),
      ...(await devicesOf('gus')).filter((name) => name === 'shared').map(() => 'gus'),
    ];
    expect(holders).toHaveLength(1);
    const id = key.credentials[0]!.id.toString('base64url');
    const index = await app.backend.get(webauthnCredentialKey(id));
    expect(JSON.parse(index!.value)).toEqual({ user: holders[0] });
    expect(index!.expires).toBeUndefined();
  });

  it('frees the key when its device or its user is removed', async () => {
    const hal = await inviteUser(app, 'hal', { device: 'webauthn' });
    const ivy = await inviteUser(app, 'ivy');
    const id = hal.authenticator!.credentials[0]!.id.toString('base64url');
    expect(await app.backend.get(webauthnCredentialKey(id))).not.toBeNull();
    await app.services.users.remove('hal', 'test');
    expect(await app.backend.get(webauthnCredentialKey(id))).toBeNull();
    const add = await addKey(ivy, 'inherited', (options) =>
      hal.authenticator!.register(options as Record<string, unknown>, { reuse: 0 }),
    );
    expect((await add()).statusCode).toBe(200);

    const tokenId = await privilegeToken(ivy);
    const removed = await app.server.inject({
      method: 'DELETE',
      url: `/v1/webapi/mfa/token/${tokenId}/devices/inherited`,
      headers: ivy.headers,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await app.backend.get(webauthnCredentialKey(id))).toBeNull();
  });

  it('gives keys registered before the index existed their record, once, at start', async () => {
    const jan = await inviteUser(app, 'jan', { device: 'webauthn' });
    const kim = await inviteUser(app, 'kim');
    const id = jan.authenticator!.credentials[0]!.id.toString('base64url');
    // As storage written by an older version: the device, but no record and no marker.
    await app.backend.delete(webauthnCredentialKey(id));
    await app.backend.delete('/migrations/webauthn_credential_index');
    await app.services.credentialIndex.backfill();
    expect(JSON.parse((await app.backend.get(webauthnCredentialKey(id)))!.value)).toEqual({
      user: 'jan',
    });
    const add = await addKey(kim, 'borrowed', (options) =>
      jan.authenticator!.register(options as Record<string, unknown>, { reuse: 0 }),
    );
    expect((await add()).statusCode).toBe(409);
  });
});
