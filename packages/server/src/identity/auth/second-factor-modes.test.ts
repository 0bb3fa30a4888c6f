import { pingResponseSchema } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import type { AuthFileConfig } from '../../config/auth-config.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  b64,
  inviteUser,
  loginWithKey,
  loginWithPasskey,
  loginWithTotp,
} from '../../testing/identity.testkit.js';
import { TestAuthenticator } from '../../testing/webauthn-authenticator.testkit.js';

async function withApp(auth: AuthFileConfig, run: (app: TestApp) => Promise<void>) {
  const app = await createTestApp({ auth });
  try {
    await run(app);
  } finally {
    await app.close();
  }
}

const begin = (app: TestApp, payload: object) =>
  app.server.inject({
    method: 'POST',
    url: '/v1/webapi/mfa/login/begin',
    headers: app.csrf.headers,
    payload,
  });
const passwordOnly = (app: TestApp, user: string, password: string) =>
  app.server.inject({
    method: 'POST',
    url: '/v1/webapi/sessions/web',
    headers: app.csrf.headers,
    payload: { user, pass: b64(password) },
  });

describe('auth.second_factor', () => {
  it('on (the default): codes and keys both work; ping says so', async () => {
    await withApp({}, async (app) => {
      const ping = pingResponseSchema.parse((await app.server.inject('/v1/webapi/ping')).json());
      expect(ping.auth).toMatchObject({
        second_factor: 'on',
        preferredLocalMfa: 'webauthn',
        allowPasswordless: true,
        localConnectorName: '',
        motd: '',
        webauthn: { rp_id: 'proxy.test' },
      });
      const otp = await inviteUser(app, 'otp-user');
      const key = await inviteUser(app, 'key-user', { device: 'webauthn' });
      expect((await loginWithTotp(app, otp)).statusCode).toBe(200);
      expect((await loginWithKey(app, key)).statusCode).toBe(200);
      expect((await passwordOnly(app, 'otp-user', otp.password!)).statusCode).toBe(403);
    });
  });

  it('webauthn: password + code is refused with a clear message', async () => {
    await withApp({ second_factor: 'webauthn', motd: 'Authorized use only' }, async (app) => {
      const config = await app.server.inject('/web/config.js');
      expect(config.body).toContain('"second_factor":"webauthn"');
      expect(config.body).toContain('"motd":"Authorized use only"');
      const key = await inviteUser(app, 'key-only', { device: 'webauthn' });
      const res = await passwordOnly(app, 'key-only', key.password!);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe(
        'this cluster accepts only hardware keys and passkeys as a second factor',
      );
      expect((await loginWithKey(app, key)).statusCode).toBe(200);
      await expect(inviteUser(app, 'app-user', { device: 'totp' })).rejects.toThrow(/not accepted/);
    });
  });

  it('otp: keys and passkeys are not offered or accepted', async () => {
    await withApp({ second_factor: 'otp' }, async (app) => {
      const ping = pingResponseSchema.parse((await app.server.inject('/v1/webapi/ping')).json());
      expect(ping.auth).toMatchObject({ preferredLocalMfa: 'otp', allowPasswordless: false });
      const otp = await inviteUser(app, 'o');
      expect((await begin(app, { user: 'o', pass: b64(otp.password!) })).json()).toEqual({
        totp_challenge: true,
      });
      expect((await begin(app, { passwordless: true })).statusCode).toBe(400);
      await expect(inviteUser(app, 'k', { device: 'webauthn' })).rejects.toThrow(/not accepted/);
    });
  });

  it('off: a password alone signs in', async () => {
    await withApp({ second_factor: 'off' }, async (app) => {
      const ping = pingResponseSchema.parse((await app.server.inject('/v1/webapi/ping')).json());
      expect(ping.auth).toMatchObject({ second_factor: 'off', preferredLocalMfa: '' });
      const plain = await inviteUser(app, 'plain', { device: 'none' });
      expect((await passwordOnly(app, 'plain', plain.password!)).statusCode).toBe(200);
    });
  });

  it('optional: a second factor only for users who registered one', async () => {
    await withApp({ second_factor: 'optional' }, async (app) => {
      const plain = await inviteUser(app, 'plain', { device: 'none' });
      const careful = await inviteUser(app, 'careful');
      expect((await passwordOnly(app, 'plain', plain.password!)).statusCode).toBe(200);
      expect((await passwordOnly(app, 'careful', careful.password!)).statusCode).toBe(403);
      expect((await loginWithTotp(app, careful)).statusCode).toBe(200);
    });
  });

  it('allow_passwordless: false refuses passkey sign-in and registration', async () => {
    await withApp({ allow_passwordless: false }, async (app) => {
      expect((await begin(app, { passwordless: true })).json().error.message).toBe(
        'passwordless sign-in is disabled on this cluster',
      );
      await expect(inviteUser(app, 'pk', { device: 'passkey' })).rejects.toThrow(/disabled/);
    });
  });
});

describe('WebAuthn origins', () => {
  it('accept the console at http://localhost when rp_id is localhost, and no other site', async () => {
    await withApp({ webauthn: { rp_id: 'localhost' } }, async (app) => {
      const local = 'http://localhost:41234';
      app.csrf.headers.origin = local;
      app.origin = local;
      const user = await inviteUser(app, 'loc', { device: 'passkey', password: null });
      expect((await loginWithPasskey(app, user.authenticator!)).statusCode).toBe(200);

      const evil = new TestAuthenticator('http://evil.test');
      evil.credentials.push(...user.authenticator!.credentials);
      app.csrf.headers.origin = 'http://evil.test';
      expect((await loginWithPasskey(app, evil)).statusCode).toBe(403);
      // A lying Origin header does not help: the signed client data names the real origin.
      app.csrf.headers.origin = local;
      expect((await loginWithPasskey(app, evil)).statusCode).toBe(403);
    });
  });
});
