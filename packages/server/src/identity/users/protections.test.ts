import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  b64,
  inviteUser,
  loginWithKey,
  loginWithTotp,
  nextTotp,
} from '../../testing/identity.testkit.js';
import { totpCode } from '../../testing/totp.testkit.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());
afterEach(() => vi.restoreAllMocks());

const login = (user: string, password: string, code = '') =>
  app.server.inject({
    method: 'POST',
    url: '/v1/webapi/sessions/web',
    headers: app.csrf.headers,
    payload: { user, pass: b64(password), second_factor_token: code },
  });

const completeInvite = async (name: string, password: string) => {
  await app.services.users.create({ name, roles: [] }, 'test');
  const { tokenId } = await app.services.tokens.create(name, 'invite', undefined, 'test');
  const details = await app.server.inject({ url: `/v1/webapi/users/password/token/${tokenId}` });
  return app.server.inject({
    method: 'PUT',
    url: '/v1/webapi/users/password/token',
    headers: app.csrf.headers,
    payload: {
      token: tokenId,
      password: b64(password),
      second_factor_token: totpCode(details.json().totpSecret, app.clock.now()),
    },
  });
};

describe('passwords', () => {
  it('are stored as argon2id with the OWASP parameters', async () => {
    await inviteUser(app, 'hash-check');
    const { passwordHash } = await app.services.users.store.credentials('hash-check');
    expect(passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('must be at least 12 characters and not a common one', async () => {
    const short = await completeInvite('short-pw', 'elevenchars');
    expect(short.statusCode).toBe(400);
    expect(short.json().error.message).toBe('password must be at least 12 characters long');
    for (const [index, common] of ['password1234', 'qwerty123456', '1q2w3e4r5t6y'].entries()) {
      const res = await completeInvite(`common-${index}`, common);
      expect(res.statusCode, common).toBe(400);
      expect(res.json().error.message).toMatch(/too common/);
    }
  });

  it('must arrive as base64 of UTF-8 text', async () => {
    for (const pass of ['abc', 'not base64!', '/w==']) {
      const res = await app.server.inject({
        method: 'POST',
        url: '/v1/webapi/sessions/web',
        headers: app.csrf.headers,
        payload: { user: 'anyone', pass, second_factor_token: '' },
      });
      expect(res.statusCode, pass).toBe(400);
      expect(res.json().error.code).toBe('bad_parameter');
    }
  });

  it('costs an unknown user the same argon2 check as a wrong password', async () => {
    await inviteUser(app, 'timing');
    const verify = vi.spyOn(app.services.passwords, 'verify');
    const dummy = vi.spyOn(app.services.passwords, 'dummyHash');
    const unknown = await login('no-such-user', 'some long password', '123456');
    expect(verify).toHaveBeenCalledWith(undefined, 'some long password');
    expect(dummy).toHaveBeenCalledTimes(1);
    const wrong = await login('timing', 'some long password', '123456');
    expect(verify).toHaveBeenCalledTimes(2);
    expect(unknown.json()).toEqual(wrong.json());
    expect(unknown.statusCode).toBe(wrong.statusCode);
  });
});

describe('lockout', () => {
  it('locks after 5 failures, tells it only to the right password and code, and an admin can unlock', async () => {
    const lou = await inviteUser(app, 'lou');
    for (let attempt = 1; attempt <= 5; attempt++) {
      const res = await login('lou', 'wrong password here', '000000');
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toBe('invalid credentials');
    }
    const sixth = await loginWithTotp(app, lou);
    expect(sixth.statusCode).toBe(403);
    expect(sixth.json().error.message).toMatch(
      /^account is locked until \S+ after too many failed logins$/,
    );
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(app.clock.now() + 1e9),
      limit: 1000,
    });
    expect(events).toContainEqual(expect.objectContaining({ code: 'TPOS012W', user: 'lou' }));

    expect(await app.services.lockout.unlock('lou', 'admin')).toBe(true);
    expect((await loginWithTotp(app, lou)).statusCode).toBe(200);
  });

  it('counts wrong second factors too, and the lock ends by itself', async () => {
    const lia = await inviteUser(app, 'lia');
    for (let attempt = 1; attempt <= 5; attempt++) await loginWithTotp(app, lia, '999999');
    expect((await loginWithTotp(app, lia)).json().error.message).toMatch(/locked/);
    app.clock.advance(20 * 60_000 + 1000);
    expect((await loginWithTotp(app, lia)).statusCode).toBe(200);
  });
});

describe('single-use second factors', () => {
  it('refuses a TOTP code a second time, and an earlier one after a later one', async () => {
    const tom = await inviteUser(app, 'tom');
    app.clock.advance(30_000);
    const previous = totpCode(tom.totpSecret!, app.clock.now() - 30_000);
    const code = totpCode(tom.totpSecret!, app.clock.now());
    expect((await loginWithTotp(app, tom, code)).statusCode).toBe(200);
    expect((await loginWithTotp(app, tom, code)).statusCode).toBe(403);
    expect((await loginWithTotp(app, tom, previous)).statusCode).toBe(403);
    expect((await loginWithTotp(app, tom, nextTotp(app, tom.totpSecret!))).statusCode).toBe(200);
  });

  it('refuses a WebAuthn answer replayed, and one to an expired challenge', async () => {
    const kai = await inviteUser(app, 'kai', { device: 'webauthn' });
    const begin = () =>
      app.server.inject({
        method: 'POST',
        url: '/v1/webapi/mfa/login/begin',
        headers: app.csrf.headers,
        payload: { user: 'kai', pass: b64(kai.password!) },
      });
    const finish = (assertion: unknown) =>
      app.server.inject({
        method: 'POST',
        url: '/v1/webapi/mfa/login/finishsession',
        headers: app.csrf.headers,
        payload: { user: 'kai', webauthnAssertionResponse: assertion },
      });
    const first = kai.authenticator!.assert((await begin()).json().webauthn_challenge.publicKey);
    expect((await finish(first)).statusCode).toBe(200);
    const replay = await finish(first);
    expect(replay.statusCode).toBe(403);
    expect(replay.json().error.message).toBe('invalid credentials');

    const late = kai.authenticator!.assert((await begin()).json().webauthn_challenge.publicKey);
    app.clock.advance(5 * 60_000 + 1000);
    expect((await finish(late)).statusCode).toBe(403);
    expect((await loginWithKey(app, kai)).statusCode).toBe(200);
  });
});
