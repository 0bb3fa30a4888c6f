import { mfaDeviceListSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  b64,
  inviteUser,
  loginWithKey,
  loginWithTotp,
  nextTotp,
  registerChallenge,
  type TestUser,
} from '../../testing/identity.testkit.js';
import { totpCode } from '../../testing/totp.testkit.js';
import { TestAuthenticator } from '../../testing/webauthn-authenticator.testkit.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const call = (
  user: TestUser,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
) =>
  app.server.inject({
    method,
    url: `/v1/webapi/${url}`,
    headers: user.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

async function privilegeToken(user: TestUser): Promise<string> {
  const res = await call(user, 'POST', 'users/privilege/token', {
    secondFactorToken: nextTotp(app, user.totpSecret!),
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return JSON.parse(res.body) as string;
}

describe('account settings', () => {
  it('changes the password with the old one and a code', async () => {
    const cat = await inviteUser(app, 'cat');
    const res = await call(cat, 'PUT', 'users/password', {
      old_password: b64(cat.password!),
      new_password: b64('another long password 7'),
      second_factor_token: nextTotp(app, cat.totpSecret!),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await loginWithTotp(app, cat)).statusCode).toBe(403);
    expect(
      (await loginWithTotp(app, { ...cat, password: 'another long password 7' })).statusCode,
    ).toBe(200);
  });

  it('changes the password with a hardware key answering the password challenge', async () => {
    const ken = await inviteUser(app, 'ken', { device: 'webauthn' });
    const challenge = await call(ken, 'POST', 'mfa/authenticatechallenge/password', {
      pass: b64(ken.password!),
    });
    expect(challenge.json().totp_challenge).toBe(false);
    const assertion = ken.authenticator!.assert(challenge.json().webauthn_challenge.publicKey);
    const res = await call(ken, 'PUT', 'users/password', {
      old_password: b64(ken.password!),
      new_password: b64('the next long password'),
      webauthnAssertionResponse: assertion,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(
      (await loginWithKey(app, { ...ken, password: 'the next long password' })).statusCode,
    ).toBe(200);
  });

  it('refuses a password change without the second factor or with a weak password', async () => {
    const liz = await inviteUser(app, 'liz');
    const noFactor = await call(liz, 'PUT', 'users/password', {
      old_password: b64(liz.password!),
      new_password: b64('another long password 7'),
    });
    expect(noFactor.statusCode).toBe(400);
    const weak = await call(liz, 'PUT', 'users/password', {
      old_password: b64(liz.password!),
      new_password: b64('password1234'),
      second_factor_token: nextTotp(app, liz.totpSecret!),
    });
    expect(weak.statusCode).toBe(400);
    const wrongOld = await call(liz, 'PUT', 'users/password', {
      old_password: b64('not my password at all'),
      new_password: b64('another long password 7'),
      second_factor_token: nextTotp(app, liz.totpSecret!),
    });
    expect(wrongOld.json().error.message).toBe('invalid credentials');
  });

  it('adds a TOTP device and a hardware key with privilege tokens, then deletes one', async () => {
    const ned = await inviteUser(app, 'ned');
    let token = await privilegeToken(ned);
    const challenge = await call(ned, 'POST', `mfa/token/${token}/registerchallenge`, {
      deviceType: 'totp',
    });
    const secret = challenge.json().totp.secret as string;
    const added = await call(ned, 'POST', 'mfa/devices', {
      tokenId: token,
      deviceName: 'tablet',
      deviceUsage: 'mfa',
      secondFactorToken: totpCode(secret, app.clock.now()),
    });
    expect(added.statusCode, added.body).toBe(200);
    // A privilege token works once.
    const again = await call(ned, 'POST', 'mfa/devices', {
      tokenId: token,
      deviceName: 'x',
      deviceUsage: 'mfa',
      secondFactorToken: '123456',
    });
    expect(again.statusCode).toBe(404);

    token = await privilegeToken(ned);
    const publicKey = await registerChallenge(app, token, 'webauthn', ned.headers);
    const key = new TestAuthenticator(app.origin);
    const keyAdded = await call(ned, 'POST', 'mfa/devices', {
      tokenId: token,
      deviceName: 'yubikey',
      deviceUsage: 'mfa',
      webauthnRegisterResponse: key.register(publicKey),
    });
    expect(keyAdded.statusCode, keyAdded.body).toBe(200);

    const list = mfaDeviceListSchema.parse((await call(ned, 'GET', 'mfa/devices')).json());
    expect(list.map((device) => [device.name, device.type])).toEqual([
      ['phone', 'TOTP'],
      ['tablet', 'TOTP'],
      ['yubikey', 'WebAuthn'],
    ]);
    expect(JSON.stringify(list)).not.toContain(secret);
    expect((await loginWithKey(app, { ...ned, authenticator: key })).statusCode).toBe(200);

    token = await privilegeToken(ned);
    const removed = await call(ned, 'DELETE', `mfa/token/${token}/devices/tablet`);
    expect(removed.statusCode).toBe(200);
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(app.clock.now() + 1e9),
      limit: 5000,
    });
    expect(events).toContainEqual(
      expect.objectContaining({ code: 'T1006I', user: 'ned', mfa_device_name: 'tablet' }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ code: 'T1007I', user: 'ned', mfa_device_name: 'tablet' }),
    );
    expect(events).toContainEqual(expect.objectContaining({ code: 'T6002I', user: 'ned' }));
  });

  it('never deletes the last device while a second factor is required', async () => {
    const ola = await inviteUser(app, 'ola');
    const token = await privilegeToken(ola);
    const res = await call(ola, 'DELETE', `mfa/token/${token}/devices/phone`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(
      'cannot delete the last second-factor device while a second factor is required (second_factor: on)',
    );
    expect(await app.services.users.store.credentials('ola')).toMatchObject({
      devices: [{ name: 'phone' }],
    });
  });

  it('keeps device names unique per user', async () => {
    const ray = await inviteUser(app, 'ray');
    const token = await privilegeToken(ray);
    const challenge = await call(ray, 'POST', `mfa/token/${token}/registerchallenge`, {
      deviceType: 'totp',
    });
    const res = await call(ray, 'POST', 'mfa/devices', {
      tokenId: token,
      deviceName: 'phone',
      deviceUsage: 'mfa',
      secondFactorToken: totpCode(challenge.json().totp.secret, app.clock.now()),
    });
    expect(res.statusCode).toBe(409);
  });

  it('lists devices and gives a challenge by privilege token, to its holder only', async () => {
    const kim = await inviteUser(app, 'kim');
    const lee = await inviteUser(app, 'lee');
    const token = await privilegeToken(kim);
    const listed = await call(kim, 'GET', `mfa/token/${token}/devices`);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(mfaDeviceListSchema.parse(listed.json()).map((device) => device.name)).toEqual([
      'phone',
    ]);
    const challenge = await call(kim, 'POST', `mfa/token/${token}/authenticatechallenge`);
    expect(challenge.statusCode, challenge.body).toBe(200);
    expect(challenge.json()).toEqual((await call(kim, 'POST', 'mfa/authenticatechallenge')).json());
    // Another user's token, a made-up one, and no session at all.
    for (const url of [`mfa/token/${token}/devices`, `mfa/token/${token}/authenticatechallenge`]) {
      const method = url.endsWith('devices') ? 'GET' : 'POST';
      const other = await call(lee, method, url);
      expect(other.statusCode).toBe(404);
      expect(other.json().error.message).toBe('bad or expired token');
      const made = await call(kim, method, url.replace(token, 'f'.repeat(32)));
      expect(made.statusCode).toBe(404);
      const anonymous = await app.server.inject({ method, url: `/v1/webapi/${url}` });
      expect(anonymous.statusCode).toBe(401);
    }
  });

  it('gives a privilege token for an empty request only to a user without devices', async () => {
    const tim = await inviteUser(app, 'tim');
    expect((await call(tim, 'POST', 'users/privilege/token', {})).statusCode).toBe(400);
    const wrong = await call(tim, 'POST', 'users/privilege/token', { secondFactorToken: '000000' });
    expect(wrong.statusCode).toBe(403);
    const bare = await createTestApp({ auth: { second_factor: 'optional' } });
    try {
      const free = await inviteUser(bare, 'free', { device: 'none' });
      const res = await bare.server.inject({
        method: 'POST',
        url: '/v1/webapi/users/privilege/token',
        headers: free.headers,
        payload: {},
      });
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body)).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      await bare.close();
    }
  });

  it("removing a device signs the user's other sessions out; the one that removed it stays", async () => {
    const una = await inviteUser(app, 'una');
    const elsewhere = await app.signIn(['access'], 'una');
    const devices = (headers: Record<string, string>) =>
      app.server.inject({ url: '/v1/webapi/mfa/devices', headers });
    expect((await devices(elsewhere)).statusCode).toBe(200);
    let token = await privilegeToken(una);
    const challenge = await call(una, 'POST', `mfa/token/${token}/registerchallenge`, {
      deviceType: 'totp',
    });
    const added = await call(una, 'POST', 'mfa/devices', {
      tokenId: token,
      deviceName: 'tablet',
      deviceUsage: 'mfa',
      secondFactorToken: totpCode(challenge.json().totp.secret as string, app.clock.now()),
    });
    expect(added.statusCode, added.body).toBe(200);
    // Adding a device takes nothing away.
    expect((await devices(elsewhere)).statusCode).toBe(200);
    token = await privilegeToken(una);
    expect((await call(una, 'DELETE', `mfa/token/${token}/devices/tablet`)).statusCode).toBe(200);
    expect((await devices(elsewhere)).statusCode).toBe(401);
    expect((await devices(una.headers)).statusCode).toBe(200);
  });

  it("an admin's reset link or deleting the user signs out every session of theirs", async () => {
    const vic = await inviteUser(app, 'vic');
    const second = await app.signIn(['access'], 'vic');
    const devices = (headers: Record<string, string>) =>
      app.server.inject({ url: '/v1/webapi/mfa/devices', headers });
    await app.services.tokens.create('vic', 'password', undefined, 'admin');
    expect((await devices(vic.headers)).statusCode).toBe(401);
    expect((await devices(second)).statusCode).toBe(401);

    const wes = await inviteUser(app, 'wes');
    await app.services.users.remove('wes', 'admin');
    expect((await devices(wes.headers)).statusCode).toBe(401);
  });
});
