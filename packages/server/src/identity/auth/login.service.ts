import type { MfaChallenge, WebauthnAssertion } from '@postern/contracts';
import type { AuthSettings } from '../../config/auth-config.js';
import { accessDenied, badParameter } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import {
  MfaDeviceLocked,
  SecondFactorRejected,
  type SecondFactorService,
} from '../mfa/second-factor.service.js';
import { lockMessage, type LockView } from '../../access-control/locks/lock-watcher.js';
import type { WebauthnService } from '../mfa/webauthn.service.js';
import { lockedError, type LockoutService } from '../users/lockout.service.js';
import { decodePassword, type PasswordHasher } from '../users/passwords.js';
import type {
  MfaDeviceRecord,
  UserCredentials,
  UserResource,
  UsersStore,
} from '../users/users.store.js';
import type { WebSession, WebSessionService } from '../web-sessions/web-sessions.service.js';
import type { RequestContext } from './session-cookie.js';

export type LoginMethod = 'password' | 'password+otp' | 'password+webauthn' | 'passwordless';

/** Every failed sign-in says only this (a lock says more), so nothing tells names apart. */
export const invalidCredentials = () => accessDenied('invalid credentials');

export interface LoginDeps {
  users: UsersStore;
  passwords: PasswordHasher;
  lockout: LockoutService;
  secondFactor: SecondFactorService;
  webauthn: WebauthnService;
  sessions: WebSessionService;
  audit: AuditStore;
  settings: AuthSettings;
  locks: LockView;
}

/** Local sign-in: password and TOTP, password and WebAuthn, or a passkey alone. */
export class LoginService {
  constructor(private readonly deps: LoginDeps) {}

  /** `POST sessions/web`: password plus an authenticator code (password alone when not required). */
  async passwordLogin(
    body: { user: string; pass: string; second_factor_token: string },
    ctx: RequestContext,
  ): Promise<WebSession> {
    if (this.deps.settings.secondFactor === 'webauthn') {
      throw accessDenied('this cluster accepts only hardware keys and passkeys as a second factor');
    }
    const password = decodePassword(body.pass, 'pass');
    const method: LoginMethod =
      this.deps.settings.secondFactor === 'off' ? 'password' : 'password+otp';
    const { user, credentials } = await this.checkPassword(body.user, password, ctx, method);
    if (!this.deps.secondFactor.required(credentials)) return this.signIn(user, 'password', ctx);
    let device: MfaDeviceRecord;
    try {
      device = await this.deps.secondFactor.verifyTotp(body.user, body.second_factor_token);
    } catch (error) {
      if (error instanceof MfaDeviceLocked) return this.refuseLockedDevice(error, method, ctx);
      if (error instanceof SecondFactorRejected) {
        return this.fail(body.user, true, method, ctx, error.message);
      }
      throw error;
    }
    return this.signIn(user, 'password+otp', ctx, device);
  }

  /** `POST mfa/login/begin`: checks the password and asks for the user's second factor. */
  async begin(
    body: { passwordless: true } | { user: string; pass: string },
    ctx: RequestContext,
  ): Promise<MfaChallenge> {
    if ('passwordless' in body && body.passwordless) {
      if (!this.deps.settings.allowPasswordless) {
        throw badParameter('passwordless sign-in is disabled on this cluster');
      }
      const publicKey = await this.deps.webauthn.authenticationOptions({
        user: '',
        purpose: 'passwordless',
        devices: [],
      });
      return { webauthn_challenge: { publicKey }, totp_challenge: false };
    }
    const { user, pass } = body as { user: string; pass: string };
    const password = decodePassword(pass, 'pass');
    const { credentials } = await this.checkPassword(user, password, ctx, 'password+webauthn');
    if (!this.deps.secondFactor.required(credentials)) return { totp_challenge: false };
    return this.deps.secondFactor.challengeFor(user, credentials, 'login');
  }

  /** `POST mfa/login/finishsession`: a key's answer to begin's challenge; no user for a passkey. */
  async finish(
    body: { user: string; webauthnAssertionResponse: WebauthnAssertion },
    ctx: RequestContext,
  ): Promise<WebSession> {
    const expected = body.user || null;
    const method: LoginMethod = expected ? 'password+webauthn' : 'passwordless';
    if (!expected && !this.deps.settings.allowPasswordless) {
      throw badParameter('passwordless sign-in is disabled on this cluster');
    }
    let name: string;
    let device: MfaDeviceRecord;
    try {
      ({ user: name, device } = await this.deps.secondFactor.verifyAssertion(
        body.webauthnAssertionResponse,
        { user: expected, purposes: [expected ? 'login' : 'passwordless'] },
        ctx.origin,
      ));
    } catch (error) {
      if (error instanceof MfaDeviceLocked) return this.refuseLockedDevice(error, method, ctx);
      if (!(error instanceof SecondFactorRejected)) throw error;
      const known = expected ? Boolean(await this.deps.users.get(expected)) : false;
      return this.fail(expected ?? '', known, method, ctx, error.message);
    }
    const found = await this.deps.users.get(name);
    if (!found) return this.fail(name, false, method, ctx, 'no such user');
    return this.signIn(found.user, method, ctx, device);
  }

  /**
   * Checks a user's password, counting a failure toward the lockout. An unknown name and a
   * locked account cost the same argon2 work as a wrong password and get the same answer: a
   * lock is told only once the password and the second factor are right (`succeed`), so a
   * guesser can tell neither which names exist nor which accounts are locked.
   */
  async checkPassword(
    name: string,
    password: string,
    ctx: RequestContext,
    method: LoginMethod,
  ): Promise<{ user: UserResource; credentials: UserCredentials }> {
    const found = await this.deps.users.get(name);
    const credentials = found ? await this.deps.users.credentials(name) : { devices: [] };
    const matches = await this.deps.passwords.verify(credentials.passwordHash, password);
    if (!found || !matches) return this.fail(name, Boolean(found), method, ctx, 'invalid password');
    return { user: found.user, credentials };
  }

  /**
   * Records a failed attempt (audit, lockout count) and refuses it with the one answer every
   * failure gets, even the failure that locks the account. Attempts on an account locked
   * already are audited as such but not counted, so they do not stretch the lock.
   */
  async fail(
    name: string,
    known: boolean,
    method: LoginMethod,
    ctx: RequestContext,
    reason: string,
  ): Promise<never> {
    const found = known ? await this.deps.users.get(name) : undefined;
    const lockedAlready = found ? this.deps.lockout.isLocked(found.user) : false;
    if (found && !lockedAlready) await this.deps.lockout.recordFailure(name, ctx.addr);
    await emitAudit(this.deps.audit, 'T1000W', {
      ...(name ? { user: name } : {}),
      method,
      success: false,
      error: lockedAlready ? `account locked: ${reason}` : reason,
      ...remoteAddr(ctx.addr),
    });
    throw invalidCredentials();
  }

  /**
   * The end of every successful sign-in to the console: `succeed`, then a new session, which
   * keeps the MFA device that signed it in (an `mfa_device` lock on it locks the session).
   */
  async signIn(
    user: UserResource,
    method: LoginMethod,
    ctx: RequestContext,
    device?: MfaDeviceRecord,
  ): Promise<WebSession> {
    await this.succeed(user, method, ctx, device);
    const extra = device ? { mfaDevice: device.id } : {};
    return this.deps.sessions.create(user.metadata.name, user.spec.roles, undefined, extra);
  }

  /**
   * A sign-in whose second factor answered correctly with a device an `mfa_device` lock covers:
   * audited as a failed sign-in, refused with the lock's message, and not counted toward the
   * lockout (nothing was guessed).
   */
  async refuseLockedDevice(
    error: MfaDeviceLocked,
    method: LoginMethod,
    ctx: RequestContext,
  ): Promise<never> {
    await emitAudit(this.deps.audit, 'T1000W', {
      user: error.user,
      method,
      success: false,
      error: error.message,
      mfa_device: mfaDeviceMetadata(error.device),
      ...remoteAddr(ctx.addr),
    });
    throw error;
  }

  /** `DELETE sessions/web`: ends the session and records the sign-out (a locked user may too). */
  async signOut(user: string, sessionId: string, ctx: RequestContext): Promise<void> {
    await this.deps.sessions.end(sessionId);
    await emitAudit(this.deps.audit, 'TPOS010I', { user, ...remoteAddr(ctx.addr) });
  }

  /**
   * What every successful sign-in does before it hands out a credential (a web session, or a
   * certificate for the CLI): refuse a lock, restart the failure count, record the login. Both
   * kinds of lock (the lockout after failed attempts, and a lock on the user or a role of
   * theirs) are checked here, once they proved who they are with every factor, so the lock's
   * message is never shown to someone who merely typed the name or guessed the password.
   */
  async succeed(
    user: UserResource,
    method: LoginMethod,
    ctx: RequestContext,
    device?: MfaDeviceRecord,
  ): Promise<void> {
    const name = user.metadata.name;
    const lockedUntil = this.deps.lockout.lockedUntil(user);
    const lock = this.deps.locks.lockFor({ user: name, roles: user.spec.roles });
    const refusal = lockedUntil
      ? lockedError(lockedUntil)
      : lock
        ? accessDenied(`your account is locked: ${lockMessage(lock)}`)
        : undefined;
    if (refusal) {
      await emitAudit(this.deps.audit, 'T1000W', {
        user: name,
        method,
        success: false,
        error: lockedUntil ? 'account locked' : refusal.message,
        ...remoteAddr(ctx.addr),
      });
      throw refusal;
    }
    await this.deps.lockout.clearFailures(name);
    await emitAudit(this.deps.audit, 'T1000I', {
      user: name,
      method,
      success: true,
      ...(device ? { mfa_device: mfaDeviceMetadata(device) } : {}),
      ...remoteAddr(ctx.addr),
    });
  }
}

/** The device a sign-in used, as the reference's login event names it (its id is what to lock). */
export const mfaDeviceMetadata = (device: MfaDeviceRecord) => ({
  mfa_device_name: device.name,
  mfa_device_uuid: device.id,
  mfa_device_type: device.type === 'totp' ? 'TOTP' : 'WebAuthn',
});
