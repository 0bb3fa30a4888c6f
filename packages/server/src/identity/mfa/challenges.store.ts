import type { DeviceUsage } from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';

/** What a WebAuthn challenge was issued for; an answer is accepted only for the same purpose. */
export type ChallengePurpose =
  | 'login'
  | 'passwordless'
  | 'register'
  | 'privilege'
  | 'password-change'
  | 'headless'
  /** Per-session MFA (session-mfa.ts): its subject names the session asked for. */
  | 'session';

export interface ChallengeRecord {
  /** The user it was issued to; '' for a passwordless login, where the answer names the user. */
  user: string;
  purpose: ChallengePurpose;
  userVerification: 'required' | 'preferred' | 'discouraged';
  /** Registrations: the device usage asked for, and the token (hashed) that allowed it. */
  usage?: DeviceUsage;
  tokenHash?: string;
  /** What one answer is bound to beyond the purpose: the headless request it approves. */
  subject?: string;
  expires: string;
}

/** WebAuthn challenges live five minutes and can be answered once. */
export const challengeTtlMs = 5 * 60 * 1000;
const prefix = '/webauthn_challenges/';

export class ChallengeStore {
  constructor(
    private readonly backend: Backend,
    private readonly now: Clock,
  ) {}

  async put(challenge: string, record: Omit<ChallengeRecord, 'expires'>): Promise<void> {
    const expires = new Date(this.now() + challengeTtlMs);
    await this.backend.create({
      key: prefix + challenge,
      value: JSON.stringify({ ...record, expires: expires.toISOString() }),
      expires,
    });
  }

  /**
   * Takes a challenge out of the store. The delete names the revision it read, so of two answers
   * racing with the same challenge only one gets it; an expired or unknown challenge is null.
   */
  async consume(challenge: string): Promise<ChallengeRecord | null> {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(challenge)) return null;
    const item = await this.backend.get(prefix + challenge);
    if (!item) return null;
    try {
      await this.backend.delete(item.key, item.revision);
    } catch {
      return null;
    }
    const record = JSON.parse(item.value) as ChallengeRecord;
    return Date.parse(record.expires) > this.now() ? record : null;
  }
}
