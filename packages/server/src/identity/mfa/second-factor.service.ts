import type { MfaChallenge, WebauthnAssertion } from '@postern/contracts';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { lockMessage, type LockView } from '../../access-control/locks/lock-watcher.js';
import type { LockResource } from '../../access-control/locks/locks.store.js';
import { totpAllowed, webauthnAllowed, type AuthSettings } from '../../config/auth-config.js';
import type { MfaDeviceRecord, UserCredentials, UsersStore } from '../users/users.store.js';
import type { ChallengePurpose } from './challenges.store.js';
import { totpStep } from './totp.js';
import { WebauthnRejected, type WebauthnService } from './webauthn.service.js';

/** A second factor that does not check out. Sign-in hides the reason; account pages show it. */
export class SecondFactorRejected extends Error {
  override name = 'SecondFactorRejected';
}

/**
 * A device an `mfa_device` lock covers: it proves nothing while the lock is in force, for any
 * check (sign-in, `postern login`, per-session MFA, account changes, headless approvals). It is
 * told only after the device answered correctly, so it reveals nothing to a guesser.
 */
export class MfaDeviceLocked extends ApiError {
  constructor(
    readonly user: string,
    readonly device: MfaDeviceRecord,
    readonly lock: LockResource,
  ) {
    super('access_denied', `this MFA device is locked: ${lockMessage(lock)}`);
  }
}

export interface SecondFactorProof {
  totpCode?: string;
  assertion?: WebauthnAssertion;
}

/** Checks TOTP codes and WebAuthn assertions against a user's devices, under auth.second_factor. */
export class SecondFactorService {
  constructor(
    private readonly users: UsersStore,
    private readonly webauthn: WebauthnService,
    private readonly settings: AuthSettings,
    private readonly now: Clock,
    private readonly locks?: LockView,
  ) {}

  /** Whether this user must present a second factor: always, except `off`, and `optional` without devices. */
  required(credentials: UserCredentials): boolean {
    const mode = this.settings.secondFactor;
    if (mode === 'off') return false;
    return mode !== 'optional' || credentials.devices.length > 0;
  }

  /** Devices usable under the current mode. */
  usable(devices: MfaDeviceRecord[]): MfaDeviceRecord[] {
    const mode = this.settings.secondFactor;
    return devices.filter((device) =>
      device.type === 'totp' ? totpAllowed(mode) : webauthnAllowed(mode),
    );
  }

  /** What to ask this user for: a WebAuthn challenge for their keys, and/or a TOTP code. */
  async challengeFor(
    user: string,
    credentials: UserCredentials,
    purpose: ChallengePurpose,
    subject?: string,
  ): Promise<MfaChallenge> {
    const devices = this.usable(credentials.devices);
    const keys = devices.filter((device) => device.type === 'webauthn');
    return {
      ...(keys.length > 0
        ? {
            webauthn_challenge: {
              publicKey: await this.webauthn.authenticationOptions({
                user,
                purpose,
                devices: keys,
                ...(subject === undefined ? {} : { subject }),
              }),
            },
          }
        : {}),
      totp_challenge: devices.some((device) => device.type === 'totp'),
    };
  }

  /** Checks a proof for `user` (a code, or an assertion of a challenge issued for `purposes`). */
  async verify(
    user: string,
    proof: SecondFactorProof,
    purposes: ChallengePurpose[],
    origin: string | undefined,
  ): Promise<{ device: MfaDeviceRecord; method: 'otp' | 'webauthn' }> {
    if (proof.assertion) {
      const { device } = await this.verifyAssertion(proof.assertion, { user, purposes }, origin);
      return { device, method: 'webauthn' };
    }
    if (proof.totpCode)
      return { device: await this.verifyTotp(user, proof.totpCode), method: 'otp' };
    throw new SecondFactorRejected('a second factor is required: an authenticator code or a key');
  }

  /** Accepts a code of one of the user's TOTP devices, once: its step is recorded atomically. */
  async verifyTotp(user: string, code: string): Promise<MfaDeviceRecord> {
    if (!totpAllowed(this.settings.secondFactor)) {
      throw new SecondFactorRejected('authenticator codes are not accepted: use a hardware key');
    }
    const device = await this.users.mutateCredentials(user, (credentials) => {
      const now = this.now();
      for (const device of credentials.devices) {
        if (!device.totp) continue;
        const step = totpStep(device.totp.secret, code.trim(), now);
        if (step === null) continue;
        if (step <= device.totp.lastUsedStep) {
          throw new SecondFactorRejected(
            'this authenticator code was used already: wait for the next one',
          );
        }
        device.totp.lastUsedStep = step;
        device.lastUsed = new Date(now).toISOString();
        return { credentials, result: device };
      }
      throw new SecondFactorRejected('invalid authenticator code');
    });
    return this.refuseLocked(user, device);
  }

  /**
   * Verifies an assertion. `user` null means any user: a passwordless login, where the
   * credential's user handle names them and only passkeys registered for it are accepted.
   */
  async verifyAssertion(
    assertion: WebauthnAssertion,
    expected: { user: string | null; purposes: ChallengePurpose[]; subject?: string },
    origin: string | undefined,
  ): Promise<{ user: string; device: MfaDeviceRecord }> {
    if (!webauthnAllowed(this.settings.secondFactor)) {
      throw new SecondFactorRejected('hardware keys are not accepted: use an authenticator code');
    }
    const response = assertion as unknown as AuthenticationResponseJSON;
    const { challenge, record } = await this.webauthn
      .takeChallenge(response.response.clientDataJSON)
      .catch(rethrowRejected);
    if (!expected.purposes.includes(record.purpose)) throw notIssued();
    if (record.subject !== expected.subject) throw notIssued();
    const passwordless = record.purpose === 'passwordless';
    const handle = response.response.userHandle ?? '';
    const user = passwordless ? await this.users.userForWebauthnHandle(handle) : record.user;
    if (!user || (expected.user !== null && user !== expected.user)) throw notIssued();
    const { devices } = await this.users.credentials(user);
    const device = devices.find((each) => each.webauthn?.credentialId === response.id);
    if (!device?.webauthn) throw new SecondFactorRejected('this key is not registered');
    if (
      passwordless &&
      (device.usage !== 'passwordless' || device.webauthn.userHandle !== handle)
    ) {
      throw new SecondFactorRejected('this key is not registered for passwordless sign-in');
    }
    const newCounter = await this.webauthn
      .verifyAssertion({ response, challenge, record, credential: device.webauthn, origin })
      .catch(rethrowRejected);
    const updated = await this.users.mutateCredentials(user, (credentials) => {
      const stored = credentials.devices.find((each) => each.id === device.id);
      if (!stored?.webauthn) throw new SecondFactorRejected('this key is not registered');
      // A counter that does not move forward may be a cloned key (both zero: keys without one).
      if (newCounter !== 0 && newCounter <= stored.webauthn.counter) {
        throw new SecondFactorRejected('the key signature counter went backwards');
      }
      stored.webauthn.counter = newCounter;
      stored.lastUsed = new Date(this.now()).toISOString();
      return { credentials, result: stored };
    });
    return { user, device: this.refuseLocked(user, updated) };
  }

  /** The device, unless an `mfa_device` lock is in force on it. */
  private refuseLocked(user: string, device: MfaDeviceRecord): MfaDeviceRecord {
    const lock = this.locks?.lockFor({ mfaDevice: device.id });
    if (lock) throw new MfaDeviceLocked(user, device, lock);
    return device;
  }
}

const notIssued = () =>
  new SecondFactorRejected('the WebAuthn challenge was not issued for this request');

function rethrowRejected(error: unknown): never {
  if (error instanceof WebauthnRejected) throw new SecondFactorRejected(error.message);
  throw error;
}
