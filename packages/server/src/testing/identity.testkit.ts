import type { SessionResponse } from '@postern/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { sessionCookieName } from '../http/request-identity.js';
import type { SignedInHeaders, TestApp } from './app-harness.testkit.js';
import { totpCode } from './totp.testkit.js';
import { TestAuthenticator } from './webauthn-authenticator.testkit.js';

export const defaultTestPassword = 'correct horse battery staple 42';
export const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

export interface TestUser {
  name: string;
  password: string | null;
  totpSecret?: string;
  authenticator?: TestAuthenticator;
  /** A browser signed in as this user: cookies (session and CSRF), bearer, CSRF header, origin. */
  headers: SignedInHeaders;
  session: SessionResponse;
}

export type TestDevice = 'totp' | 'webauthn' | 'passkey' | 'none';

/** The headers of the browser a sign-in response signed in. */
export function sessionHeaders(app: TestApp, res: LightMyRequestResponse): SignedInHeaders {
  const cookie = res.cookies.find((each) => each.name === sessionCookieName);
  if (res.statusCode !== 200 || !cookie) {
    throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  }
  const { token } = res.json() as SessionResponse;
  return {
    ...app.csrf.headers,
    cookie: `${app.csrf.cookie}; ${sessionCookieName}=${cookie.value}`,
    authorization: `Bearer ${token}`,
  };
}

/** The current code of a TOTP secret, after moving the clock to the next 30 s step (codes are single use). */
export function nextTotp(app: TestApp, secret: string): string {
  app.clock.advance(30_000);
  return totpCode(secret, app.clock.now());
}

/**
 * Creates a user and completes their invite through the API, as the invite screen does:
 * password plus an authenticator app, a hardware key, a passkey, or nothing.
 */
export async function inviteUser(
  app: TestApp,
  name: string,
  options: { roles?: string[]; device?: TestDevice; password?: string | null } = {},
): Promise<TestUser> {
  const device = options.device ?? 'totp';
  const password = options.password === undefined ? defaultTestPassword : options.password;
  await app.services.users.create({ name, roles: options.roles ?? ['access'] }, 'test');
  const { tokenId } = await app.services.tokens.create(name, 'invite', undefined, 'test');
  const body: Record<string, unknown> = { token: tokenId, password: password && b64(password) };
  const user: Partial<TestUser> = { name, password };
  if (device === 'totp') {
    const details = await app.server.inject({ url: `/v1/webapi/users/password/token/${tokenId}` });
    user.totpSecret = details.json().totpSecret as string;
    body.second_factor_token = totpCode(user.totpSecret, app.clock.now());
    body.deviceName = 'phone';
  } else if (device !== 'none') {
    user.authenticator = new TestAuthenticator(app.origin);
    const publicKey = await registerChallenge(app, tokenId, device, app.csrf.headers);
    body.webauthnCreationResponse = user.authenticator.register(publicKey);
    body.deviceName = device === 'passkey' ? 'passkey' : 'yubikey';
  }
  const res = await app.server.inject({
    method: 'PUT',
    url: '/v1/webapi/users/password/token',
    headers: app.csrf.headers,
    payload: body,
  });
  user.headers = sessionHeaders(app, res);
  user.session = res.json() as SessionResponse;
  return user as TestUser;
}

/** `POST mfa/token/:id/registerchallenge` for a WebAuthn device; returns the publicKey options. */
export async function registerChallenge(
  app: TestApp,
  tokenId: string,
  device: 'webauthn' | 'passkey',
  headers: Record<string, string>,
): Promise<Record<string, unknown>> {
  const res = await app.server.inject({
    method: 'POST',
    url: `/v1/webapi/mfa/token/${tokenId}/registerchallenge`,
    headers,
    payload: { deviceType: 'webauthn', deviceUsage: device === 'passkey' ? 'passwordless' : 'mfa' },
  });
  if (res.statusCode !== 200) throw new Error(`registerchallenge: ${res.statusCode} ${res.body}`);
  return res.json().webauthn.publicKey as Record<string, unknown>;
}

/** `POST sessions/web` with a password and the next TOTP code. */
export function loginWithTotp(
  app: TestApp,
  user: TestUser,
  code = nextTotp(app, user.totpSecret!),
) {
  return app.server.inject({
    method: 'POST',
    url: '/v1/webapi/sessions/web',
    headers: app.csrf.headers,
    payload: { user: user.name, pass: b64(user.password!), second_factor_token: code },
  });
}

/** Password + hardware key: `mfa/login/begin`, the key's assertion, `mfa/login/finishsession`. */
export async function loginWithKey(app: TestApp, user: TestUser) {
  const begin = await app.server.inject({
    method: 'POST',
    url: '/v1/webapi/mfa/login/begin',
    headers: app.csrf.headers,
    payload: { user: user.name, pass: b64(user.password!) },
  });
  if (begin.statusCode !== 200) return begin;
  const assertion = user.authenticator!.assert(begin.json().webauthn_challenge.publicKey);
  return app.server.inject({
    method: 'POST',
    url: '/v1/webapi/mfa/login/finishsession',
    headers: app.csrf.headers,
    payload: { user: user.name, webauthnAssertionResponse: assertion },
  });
}

/** A passkey alone: begin with `passwordless: true`, finish with no user name. */
export async function loginWithPasskey(app: TestApp, authenticator: TestAuthenticator) {
  const begin = await app.server.inject({
    method: 'POST',
    url: '/v1/webapi/mfa/login/begin',
    headers: app.csrf.headers,
    payload: { passwordless: true },
  });
  if (begin.statusCode !== 200) return begin;
  const assertion = authenticator.assert(begin.json().webauthn_challenge.publicKey);
  return app.server.inject({
    method: 'POST',
    url: '/v1/webapi/mfa/login/finishsession',
    headers: app.csrf.headers,
    payload: { user: '', webauthnAssertionResponse: assertion },
  });
}
