import { CLOCK_SKEW_MS } from '../../ssh/ca.service.js';
import type { UserResource } from '../../identity/users/users.store.js';

/**
 * The proof a caller holds: a web session (its sign-in time, kept across renewals, and its
 * lineage, shared by a session and the sessions renewed from it) or a user certificate (its
 * issue time).
 */
export interface Credential {
  issuedAt: number;
  /** Web sessions only: one id for a sign-in and every renewal of it. */
  lineage?: string;
  /** The MFA device it was signed in with, when one was: an `mfa_device` lock covers it. */
  mfaDevice?: string;
}

/**
 * Who a long-lived connection acts for, kept so that it can be judged again later against the
 * CURRENT roles, traits and credentials (a role edit, a password change, a deleted user).
 */
export interface SubjectRef {
  user: string;
  /** The roles the credential carries: used only for a user without a record (tests, old data). */
  roles: string[];
  credential: Credential;
  /** Whether the user had a record when the connection was made: its removal then ends it. */
  hadRecord: boolean;
  /** The access requests the credential assumed: their roles count while they are approved. */
  accessRequests?: string[];
}

/**
 * Why a credential no longer counts, or undefined. A change of credentials (password, second
 * factor, an admin's reset) stamps the user record; whatever was issued before that moment is
 * refused, except the web session that made the change (its lineage is kept).
 */
export function credentialRevoked(
  record: UserResource | undefined,
  credential: Credential,
): string | undefined {
  const changed = record?.credentialsChanged;
  if (!changed) return undefined;
  if (credential.issuedAt >= Date.parse(changed.at)) return undefined;
  const kept = changed.keptLineage;
  if (kept !== undefined && credential.lineage === kept) return undefined;
  return 'your credentials changed; sign in again';
}

/**
 * A user certificate as a credential. Its validity starts a fixed time before issue, in whole
 * seconds, so the issue time read back may be up to a second early: a certificate issued in the
 * very second of a credentials change may be refused too (the user signs in again).
 */
export function certificateCredential(validAfter: Date, mfaDevice?: string): Credential {
  return { issuedAt: validAfter.getTime() + CLOCK_SKEW_MS, ...(mfaDevice ? { mfaDevice } : {}) };
}
