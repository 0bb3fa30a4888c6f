import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  b64,
  inviteUser,
  loginWithKey,
  loginWithPasskey,
  loginWithTotp,
  type TestDevice,
  type TestUser,
} from '../../testing/identity.testkit.js';
import { createOpsRole, requestCertificate } from '../../testing/ssh-login.testkit.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import { hostActor } from '../../access-control/access/actor.js';

let app: TestApp;
let serial = 0;
const key = generateEd25519Key();

beforeAll(async () => {
  app = await createTestApp();
  await createOpsRole(app);
});
afterAll(() => app.close());
afterEach(() => vi.restoreAllMocks());

type LockKind = 'lockout' | 'admin lock';
const lockKinds: LockKind[] = ['lockout', 'admin lock'];
const lockMessages: Record<LockKind, RegExp> = {
  lockout: /^account is locked until \S+ after too many failed logins$/,
  'admin lock': /^your account is locked: under review$/,
};

async function newUser(device: TestDevice): Promise<TestUser> {
  serial += 1;
  const password = device === 'passkey' ? null : undefined;
  return inviteUser(app, `user-${serial}`, { roles: ['ops'], device, password });
}

/** Locks `user` the way `kind` says: the failed-attempts lockout, or an admin's lock. */
async function lock(user: TestUser, kind: LockKind): Promise<void> {
  if (kind === 'lockout') {
    const lockedUntil = new Date(app.clock.now() + 3600_000).toISOString();
    await app.services.users.store.mutate(user.name, (record) => ({
      ...record,
      status: { lockedUntil, lockReason: '5 failed logins within 15 minutes' },
    }));
    return;
  }
  await app.services.locks.create(
    { targets: { user: user.name }, message: 'under review' },
    hostActor('test'),
  );
  await vi.waitFor(() => expect(app.services.lockWatcher.isLocked({ user: user.name })).toBe(true));
}

const answer = (res: LightMyRequestResponse) => ({ status: res.statusCode, body: res.body });
const invalid = {
  status: 403,
  body: JSON.stringify({
    error: { message: 'invalid credentials', code: 'access_denied' },
    message: 'invalid credentials',
  }),
};

const webLogin = (user: TestUser, password: string, code: string) =>
  app.server.inject({
    method: 'POST',
    url: '/v1/webapi/sessions/web',
    headers: app.csrf.headers,
    payload: { user: user.name, pass: b64(password), second_factor_token: code },
  });
const begin = (user: TestUser, password: string) =>
  app.server.inject({
    method: 'POST',
    url: '/v1/webapi/mfa/login/begin',
    headers: app.csrf.headers,
    payload: { user: user.name, pass: b64(password) },
  });

/** The argon2 checks made during `run`, by the stored hash they checked against. */
async function hashesChecked(run: () => Promise<unknown>): Promise<(string | undefined)[]> {
  const verify = vi.spyOn(app.services.passwords, 'verify');
  await run();
  const hashes = verify.mock.calls.map(([hash]) => hash);
  verify.mockRestore();
  return hashes;
}

describe.each(lockKinds)(
  'a %s answers like a wrong password until every factor is right',
  (kind) => {
    it('password + authenticator code (sessions/web)', async () => {
      const open = await newUser('totp');
      const locked = await newUser('totp');
      await lock(locked, kind);
      const reference = answer(await webLogin(open, 'a wrong password, surely', '123456'));
      expect(reference).toEqual(invalid);
      const lockedHash = (await app.services.users.store.credentials(locked.name)).passwordHash;
      const hashes = await hashesChecked(async () => {
        expect(answer(await webLogin(locked, 'a wrong password, surely', '123456'))).toEqual(
          reference,
        );
      });
      // The locked account still costs the argon2 check against its own hash.
      expect(hashes).toEqual([lockedHash]);
      expect(answer(await loginWithTotp(app, locked, '000000'))).toEqual(reference);

      const right = await loginWithTotp(app, locked);
      expect(right.statusCode).toBe(403);
      expect(right.json().error.message).toMatch(lockMessages[kind]);
    });

    it('password + hardware key (mfa/login/begin, then finishsession)', async () => {
      const open = await newUser('webauthn');
      const locked = await newUser('webauthn');
      await lock(locked, kind);
      const reference = answer(await begin(open, 'a wrong password, surely'));
      expect(reference).toEqual(invalid);
      const hashes = await hashesChecked(async () => {
        expect(answer(await begin(locked, 'a wrong password, surely'))).toEqual(reference);
      });
      expect(hashes).toHaveLength(1);
      expect(hashes[0]).toMatch(/^\$argon2id\$/);

      // The right password alone gets the challenge an open account gets, not the lock.
      const challenge = await begin(locked, locked.password!);
      expect(challenge.statusCode).toBe(200);
      expect(Object.keys(challenge.json())).toEqual(
        Object.keys((await begin(open, open.password!)).json()),
      );
      const right = await loginWithKey(app, locked);
      expect(right.statusCode).toBe(403);
      expect(right.json().error.message).toMatch(lockMessages[kind]);
    });

    it('a passkey alone (passwordless)', async () => {
      const open = await newUser('passkey');
      const locked = await newUser('passkey');
      await lock(locked, kind);
      const wrongOrigin = { origin: 'https://elsewhere.test' };
      const forged = async (user: TestUser) => {
        const options = await app.server.inject({
          method: 'POST',
          url: '/v1/webapi/mfa/login/begin',
          headers: app.csrf.headers,
          payload: { passwordless: true },
        });
        const assertion = user.authenticator!.assert(
          options.json().webauthn_challenge.publicKey,
          wrongOrigin,
        );
        return app.server.inject({
          method: 'POST',
          url: '/v1/webapi/mfa/login/finishsession',
          headers: app.csrf.headers,
          payload: { user: '', webauthnAssertionResponse: assertion },
        });
      };
      const reference = answer(await forged(open));
      expect(reference).toEqual(invalid);
      expect(answer(await forged(locked))).toEqual(reference);

      const right = await loginWithPasskey(app, locked.authenticator!);
      expect(right.statusCode).toBe(403);
      expect(right.json().error.message).toMatch(lockMessages[kind]);
    });

    it('postern login (ssh/certs)', async () => {
      const open = await newUser('totp');
      const locked = await newUser('totp');
      await lock(locked, kind);
      const wrongPassword = { password: b64('a wrong password, surely') };
      const reference = answer(await requestCertificate(app, open, key.publicKey, wrongPassword));
      expect(reference).toEqual(invalid);
      const hashes = await hashesChecked(async () => {
        const res = await requestCertificate(app, locked, key.publicKey, wrongPassword);
        expect(answer(res)).toEqual(reference);
      });
      expect(hashes).toHaveLength(1);
      expect(hashes[0]).toMatch(/^\$argon2id\$/);
      const wrongCode = { otp_token: '000000' };
      expect(answer(await requestCertificate(app, locked, key.publicKey, wrongCode))).toEqual(
        reference,
      );

      const right = await requestCertificate(app, locked, key.publicKey);
      expect(right.statusCode).toBe(403);
      expect(right.json().error.message).toMatch(lockMessages[kind]);
    });
  },
);

describe('refused attempts on a locked account', () => {
  it('are audited, and do not stretch the lockout', async () => {
    const locked = await newUser('totp');
    await lock(locked, 'lockout');
    const before = (await app.services.users.store.get(locked.name))!.user.status;
    for (let attempt = 0; attempt < 6; attempt++) {
      await webLogin(locked, 'a wrong password, surely', '123456');
    }
    expect((await app.services.users.store.get(locked.name))!.user.status).toEqual(before);
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(app.clock.now() + 1e9),
      limit: 5000,
    });
    const refused = events.filter((event) => event.code === 'T1000W' && event.user === locked.name);
    expect(refused).toHaveLength(6);
    expect(refused[0]).toMatchObject({ success: false, error: 'account locked: invalid password' });
  });
});
