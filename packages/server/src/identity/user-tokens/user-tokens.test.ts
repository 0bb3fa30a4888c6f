import { userTokenDetailsSchema, userTokenSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  b64,
  defaultTestPassword,
  inviteUser,
  loginWithPasskey,
  loginWithTotp,
  registerChallenge,
  sessionHeaders,
} from '../../testing/identity.testkit.js';
import { totpCode } from '../../testing/totp.testkit.js';
import { TestAuthenticator } from '../../testing/webauthn-authenticator.testkit.js';

let app: TestApp;
let admin: Record<string, string>;
beforeAll(async () => {
  app = await createTestApp();
  admin = await app.signIn(['editor'], 'root');
});
afterAll(() => app.close());

const createToken = (headers: Record<string, string>, payload: Record<string, unknown>) =>
  app.server.inject({ method: 'POST', url: '/v1/webapi/users/password/token', headers, payload });
const details = (tokenId: string) =>
  app.server.inject({ url: `/v1/webapi/users/password/token/${tokenId}` });
const complete = (payload: Record<string, unknown>) =>
  app.server.inject({
    method: 'PUT',
    url: '/v1/webapi/users/password/token',
    headers: app.csrf.headers,
    payload,
  });
const devicesOf = async (name: string) =>
  (await app.services.users.store.credentials(name)).devices;

describe('invite and reset links', () => {
  it('are created by users who may create (invite) or edit (reset) users', async () => {
    await app.services.users.create({ name: 'newbie', roles: ['access'] }, 'test');
    const invite = await createToken(admin, { name: 'newbie', type: 'invite' });
    expect(invite.statusCode).toBe(200);
    const token = userTokenSchema.parse(invite.json());
    expect(Date.parse(token.expiry) - app.clock.now()).toBeGreaterThan(3590_000);
    expect(Date.parse(token.expiry) - app.clock.now()).toBeLessThanOrEqual(3600_000);
    for (const roles of [[], ['auditor'], ['access']]) {
      const headers = await app.signIn(roles, 'someone');
      for (const type of ['invite', 'password']) {
        const res = await createToken(headers, { name: 'newbie', type });
        expect(res.statusCode, `${roles} ${type}`).toBe(403);
      }
    }
    expect((await createToken(admin, { name: 'ghost', type: 'invite' })).statusCode).toBe(400);
  });

  it('live 1 h by default and 48 h at most', async () => {
    await app.services.users.create({ name: 'ttl-user', roles: [] }, 'test');
    const long = await createToken(admin, { name: 'ttl-user', type: 'invite', ttl: '48h' });
    expect(long.statusCode).toBe(200);
    const tooLong = await createToken(admin, { name: 'ttl-user', type: 'invite', ttl: '49h' });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error.message).toBe('ttl must be at most 48h');
    const short = await createToken(admin, { name: 'ttl-user', type: 'password', ttl: '30m' });
    expect(short.json().type).toBe('password');
    // Only the newest link of a user works.
    expect((await details(long.json().tokenId)).statusCode).toBe(404);
    expect((await details(short.json().tokenId)).statusCode).toBe(200);
    app.clock.advance(31 * 60_000);
    const expired = await details(short.json().tokenId);
    expect(expired.statusCode).toBe(404);
    expect(expired.json().error.message).toBe('bad or expired token');
  });

  it('show a new TOTP secret on every read, as an SVG QR code and as text', async () => {
    await app.services.users.create({ name: 'reader', roles: [] }, 'test');
    const { tokenId } = await app.services.tokens.create('reader', 'invite', undefined, 'test');
    const first = userTokenDetailsSchema.parse((await details(tokenId)).json());
    const second = userTokenDetailsSchema.parse((await details(tokenId)).json());
    expect(first).toMatchObject({ tokenId, user: 'reader', type: 'invite' });
    expect(first.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(first.totpSecret).toMatch(/^[A-Z2-7]{32}$/);
    expect(second.totpSecret).not.toBe(first.totpSecret);
    const stale = await complete({
      token: tokenId,
      password: b64(defaultTestPassword),
      second_factor_token: totpCode(first.totpSecret, app.clock.now()),
    });
    expect(stale.statusCode).toBe(400);
    const fresh = await complete({
      token: tokenId,
      password: b64(defaultTestPassword),
      second_factor_token: totpCode(second.totpSecret, app.clock.now()),
    });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toMatchObject({
      recovery: null,
      privateKeyPolicyEnabled: false,
      type: 'bearer',
    });
    // Used once: gone.
    expect((await details(tokenId)).statusCode).toBe(404);
    expect(
      (await complete({ token: tokenId, password: b64(defaultTestPassword) })).statusCode,
    ).toBe(404);
  });

  it('need a second factor while one is required, and a password unless a passkey is registered', async () => {
    await app.services.users.create({ name: 'lazy', roles: [] }, 'test');
    const { tokenId } = await app.services.tokens.create('lazy', 'invite', undefined, 'test');
    const none = await complete({ token: tokenId, password: b64(defaultTestPassword) });
    expect(none.statusCode).toBe(400);
    expect(none.json().error.message).toMatch(/second factor is required/);
    const key = new TestAuthenticator(app.origin);
    const options = await registerChallenge(app, tokenId, 'webauthn', app.csrf.headers);
    const noPassword = await complete({
      token: tokenId,
      password: null,
      webauthnCreationResponse: key.register(options),
    });
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.json().error.message).toBe(
      'a password is required unless you register a passkey',
    );
  });

  it('reset replaces the password and every device, and ends the old sessions', async () => {
    const rex = await inviteUser(app, 'rex');
    const oldDevices = await devicesOf('rex');
    const { tokenId } = await app.services.tokens.create('rex', 'password', undefined, 'test');
    const secret = (await details(tokenId)).json().totpSecret as string;
    const res = await complete({
      token: tokenId,
      password: b64('a brand new password 9'),
      second_factor_token: totpCode(secret, app.clock.now()),
      deviceName: 'new phone',
    });
    expect(res.statusCode).toBe(200);
    const devices = await devicesOf('rex');
    expect(devices.map((device) => device.name)).toEqual(['new phone']);
    expect(devices[0]!.id).not.toBe(oldDevices[0]!.id);
    expect(
      (await app.server.inject({ url: '/v1/webapi/sites', headers: rex.headers })).statusCode,
    ).toBe(401);
    expect(
      (await app.server.inject({ url: '/v1/webapi/sites', headers: sessionHeaders(app, res) }))
        .statusCode,
    ).toBe(200);
    expect((await loginWithTotp(app, rex)).statusCode).toBe(403);
    const renewed = { ...rex, password: 'a brand new password 9', totpSecret: secret };
    expect((await loginWithTotp(app, renewed)).statusCode).toBe(200);
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(app.clock.now() + 1e9),
      limit: 5000,
    });
    expect(events).toContainEqual(
      expect.objectContaining({ code: 'T6000I', name: 'rex', token_type: 'reset' }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ code: 'TPOS011I', user: 'rex', token_type: 'reset' }),
    );
  });

  it('reset without a password registers a passkey: the passwordless flow', async () => {
    await inviteUser(app, 'pam');
    const { tokenId } = await app.services.tokens.create('pam', 'password', undefined, 'test');
    const passkey = new TestAuthenticator(app.origin);
    const options = await registerChallenge(app, tokenId, 'passkey', app.csrf.headers);
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'required',
    });
    const res = await complete({
      token: tokenId,
      password: null,
      webauthnCreationResponse: passkey.register(options),
      deviceName: 'laptop',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await app.services.users.store.credentials('pam')).passwordHash).toBeUndefined();
    expect((await loginWithPasskey(app, passkey)).statusCode).toBe(200);
  });

  it('refuse a privilege token on the registration challenge without its user signed in', async () => {
    const una = await inviteUser(app, 'una');
    const privilege = await app.services.tokens.createPrivilege('una');
    const url = `/v1/webapi/mfa/token/${privilege}/registerchallenge`;
    const payload = { deviceType: 'webauthn', deviceUsage: 'mfa' };
    const anonymous = await app.server.inject({
      method: 'POST',
      url,
      headers: app.csrf.headers,
      payload,
    });
    expect(anonymous.statusCode).toBe(404);
    const other = await app.signIn(['access'], 'vic');
    const wrongUser = await app.server.inject({
      method: 'POST',
      url,
      headers: { ...app.csrf.headers, ...other, cookie: `${app.csrf.cookie}; ${other.cookie}` },
      payload,
    });
    expect(wrongUser.statusCode).toBe(404);
    const own = await app.server.inject({ method: 'POST', url, headers: una.headers, payload });
    expect(own.statusCode).toBe(200);
  });
});
