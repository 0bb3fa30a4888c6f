import { sessionResponseSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  b64,
  inviteUser,
  loginWithKey,
  loginWithPasskey,
  loginWithTotp,
  sessionHeaders,
} from '../../testing/identity.testkit.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const sites = (headers: Record<string, string>) =>
  app.server.inject({ url: '/v1/webapi/sites', headers });

describe('sign-in', () => {
  it('invite with password + TOTP signs the user in with a __Host- cookie and a bearer', async () => {
    const alice = await inviteUser(app, 'alice');
    expect(sessionResponseSchema.parse(alice.session)).toMatchObject({
      type: 'bearer',
      expires_in: 600,
    });
    expect((await sites(alice.headers)).statusCode).toBe(200);
  });

  it('sets the session cookie HttpOnly, Secure, SameSite=Strict, Path=/', async () => {
    const bob = await inviteUser(app, 'bob');
    const res = await loginWithTotp(app, bob);
    expect(res.statusCode).toBe(200);
    const cookie = res.cookies.find((each) => each.name === '__Host-session');
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });
    expect(cookie?.value).toMatch(/^[0-9a-f]{64}$/);
    expect(res.json().token).toMatch(/^[0-9a-f]{64}$/);
    expect((await sites(sessionHeaders(app, res))).statusCode).toBe(200);
    const events = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 3600e3 * 24),
      limit: 100,
    });
    expect(events.events).toContainEqual(
      expect.objectContaining({ code: 'T1000I', user: 'bob', method: 'password+otp' }),
    );
  });

  it('signs in with password + hardware key through begin/finishsession', async () => {
    const carol = await inviteUser(app, 'carol', { device: 'webauthn' });
    const res = await loginWithKey(app, carol);
    expect(res.statusCode, res.body).toBe(200);
    expect((await sites(sessionHeaders(app, res))).statusCode).toBe(200);
  });

  it('signs in with a passkey alone', async () => {
    const dave = await inviteUser(app, 'dave', { device: 'passkey', password: null });
    const res = await loginWithPasskey(app, dave.authenticator!);
    expect(res.statusCode, res.body).toBe(200);
  });

  it('refuses a wrong password, a wrong code and an unknown user with one answer', async () => {
    const erin = await inviteUser(app, 'erin');
    const wrongPassword = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/sessions/web',
      headers: app.csrf.headers,
      payload: {
        user: 'erin',
        pass: b64('not the password at all'),
        second_factor_token: '123456',
      },
    });
    const wrongCode = await loginWithTotp(app, erin, '000000');
    const unknown = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/sessions/web',
      headers: app.csrf.headers,
      payload: { user: 'nobody', pass: b64('whatever it is here'), second_factor_token: '123456' },
    });
    for (const res of [wrongPassword, wrongCode, unknown]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        error: { message: 'invalid credentials', code: 'access_denied' },
        message: 'invalid credentials',
      });
    }
  });
});
