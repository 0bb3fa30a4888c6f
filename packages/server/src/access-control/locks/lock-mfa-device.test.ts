import { mfaDeviceListSchema, terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  inviteUser,
  loginWithKey,
  loginWithTotp,
  nextTotp,
  registerChallenge,
  sessionHeaders,
  type TestUser,
} from '../../testing/identity.testkit.js';
import { createRole } from '../../testing/roles.testkit.js';
import { startSshd } from '../../testing/sshd.testkit.js';
import { openTerminal } from '../../testing/terminal-client.testkit.js';
import { TestAuthenticator } from '../../testing/webauthn-authenticator.testkit.js';

// An `mfa_device` lock (the reference's target kind) fences one device of a user, say a phone
// reported stolen: the device proves nothing while the lock is in force, and whatever was signed
// in with it (web sessions and what they opened) is locked, while the user's other devices and
// the sessions they signed in go on. Real sign-ins through the API, a real sshd for the terminal.

const admin = hostActor('test');
let app: TestApp;
let mia: TestUser;
let key: TestAuthenticator;
let phoneId: string;

const call = (
  headers: Record<string, string>,
  method: 'GET' | 'POST',
  url: string,
  body?: object,
) =>
  app.server.inject({
    method,
    url: `/v1/webapi/${url}`,
    headers,
    ...(body ? { payload: body } : {}),
  });
const sites = (headers: Record<string, string>) => call(headers, 'GET', 'sites');
const events = async () =>
  (await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 864e5), limit: 1000 }))
    .events;
const lockPhone = (message: string) =>
  app.services.locks.create({ targets: { mfa_device: phoneId }, message }, admin);
async function unlockAll(): Promise<void> {
  for (const lock of await app.services.locks.list(admin)) {
    await app.services.locks.remove(lock.metadata.name, admin);
  }
}

/** Adds a hardware key to the user's devices as the account page does (a privilege token first). */
async function addKey(user: TestUser): Promise<TestAuthenticator> {
  const token = await call(user.headers, 'POST', 'users/privilege/token', {
    secondFactorToken: nextTotp(app, user.totpSecret!),
  });
  expect(token.statusCode, token.body).toBe(200);
  const tokenId = JSON.parse(token.body) as string;
  const authenticator = new TestAuthenticator(app.origin);
  const publicKey = await registerChallenge(app, tokenId, 'webauthn', user.headers);
  const added = await call(user.headers, 'POST', 'mfa/devices', {
    tokenId,
    deviceName: 'yubikey',
    deviceUsage: 'mfa',
    webauthnRegisterResponse: authenticator.register(publicKey),
  });
  expect(added.statusCode, added.body).toBe(200);
  return authenticator;
}

beforeAll(async () => {
  app = await createTestApp();
  await createRole(app, 'root-access', { allow: { node_labels: { '*': '*' }, logins: ['root'] } });
  mia = await inviteUser(app, 'mia', { roles: ['root-access'] });
  key = await addKey(mia);
  const devices = mfaDeviceListSchema.parse((await call(mia.headers, 'GET', 'mfa/devices')).json());
  phoneId = devices.find((device) => device.name === 'phone')!.id;
});
afterAll(() => app?.close());

describe('an mfa_device lock', () => {
  it('locks the web sessions signed in with the device, and only while it is in force', async () => {
    const byPhone = sessionHeaders(app, await loginWithTotp(app, mia));
    const byKey = sessionHeaders(app, await loginWithKey(app, { ...mia, authenticator: key }));
    // The sign-in names the device, so an administrator knows what to lock.
    expect(await events()).toContainEqual(
      expect.objectContaining({
        code: 'T1000I',
        user: 'mia',
        method: 'password+otp',
        mfa_device: { mfa_device_name: 'phone', mfa_device_uuid: phoneId, mfa_device_type: 'TOTP' },
      }),
    );
    await lockPhone('phone reported stolen');
    try {
      const refused = await sites(byPhone);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.message).toBe('locked: phone reported stolen');
      expect((await sites(byKey)).statusCode).toBe(200);
    } finally {
      await unlockAll();
    }
    expect((await sites(byPhone)).statusCode).toBe(200);
  });

  it('follows a session into its renewals', async () => {
    const byPhone = sessionHeaders(app, await loginWithTotp(app, mia));
    const renewed = await call(byPhone, 'POST', 'sessions/web/renew', {});
    expect(renewed.statusCode, renewed.body).toBe(200);
    const headers = sessionHeaders(app, renewed);
    await lockPhone('renewed or not');
    try {
      expect((await sites(headers)).json().error.message).toBe('locked: renewed or not');
    } finally {
      await unlockAll();
    }
  });

  it('refuses the device for a new sign-in with the lock message, audited, not counted as a guess', async () => {
    await lockPhone('phone reported stolen');
    try {
      for (let attempt = 0; attempt < 6; attempt++) {
        const res = await loginWithTotp(app, mia);
        expect(res.statusCode).toBe(403);
        expect(res.json().error.message).toBe('this MFA device is locked: phone reported stolen');
      }
      // Six refusals did not lock the account out: nothing was guessed.
      expect((await loginWithKey(app, { ...mia, authenticator: key })).statusCode).toBe(200);
      expect(await events()).toContainEqual(
        expect.objectContaining({
          code: 'T1000W',
          user: 'mia',
          success: false,
          error: 'this MFA device is locked: phone reported stolen',
          mfa_device: expect.objectContaining({ mfa_device_uuid: phoneId }),
        }),
      );
    } finally {
      await unlockAll();
    }
    expect((await loginWithTotp(app, mia)).statusCode).toBe(200);
  });

  it('refuses the device for every other check: an account change', async () => {
    const byKey = sessionHeaders(app, await loginWithKey(app, { ...mia, authenticator: key }));
    await lockPhone('not this phone');
    try {
      const res = await call(byKey, 'POST', 'users/privilege/token', {
        secondFactorToken: nextTotp(app, mia.totpSecret!),
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe('this MFA device is locked: not this phone');
    } finally {
      await unlockAll();
    }
  });

  it('ends a live terminal opened from a session signed in with the device', async () => {
    const sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
    try {
      const node = await app.services.inventory.addOpenSsh(
        { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: {} },
        admin,
      );
      const { baseUrl } = await app.listenOnLoopback();
      const byPhone = sessionHeaders(app, await loginWithTotp(app, mia));
      const byKey = sessionHeaders(app, await loginWithKey(app, { ...mia, authenticator: key }));
      const params = { server_id: node.metadata.name, login: 'root', term: { w: 80, h: 24 } };
      const phoneShell = await openTerminal({ baseUrl, headers: byPhone, params });
      const keyShell = await openTerminal({ baseUrl, headers: byKey, params });
      await phoneShell.waitForOutput(/[#$] $/m);
      await keyShell.waitForOutput(/[#$] $/m);
      await lockPhone('phone reported stolen');
      await phoneShell.closed;
      const end = phoneShell.frames.find((frame) => frame.type === T.sessionEnd)?.payload ?? '{}';
      expect(JSON.parse(end)).toEqual({ reason: 'locked: phone reported stolen' });
      // The session signed in with the key goes on.
      keyShell.type('echo "still=$((40+2))"\r');
      await keyShell.waitForOutput(/still=42/);
      keyShell.close();
      await keyShell.closed;
    } finally {
      await unlockAll();
      await sshd.stop();
    }
  });
});
