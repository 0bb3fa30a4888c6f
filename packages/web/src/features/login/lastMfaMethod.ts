import type { MfaMethod } from '../../lib/secondFactor';
import { storageKeys } from '../../lib/storageKeys';

/**
 * The second factor of the last successful sign-in on this browser, so the form offers it first
 * next time. Only the kind is kept ('otp' or 'webauthn'), nothing about the user.
 */
const remembered: readonly MfaMethod[] = ['otp', 'webauthn'];

export function readLastMfaMethod(storage: Pick<Storage, 'getItem'> = localStorage) {
  try {
    const value = storage.getItem(storageKeys.lastMfaMethod);
    return remembered.find((method) => method === value);
  } catch {
    return undefined;
  }
}

export function rememberMfaMethod(
  method: MfaMethod,
  storage: Pick<Storage, 'setItem'> = localStorage,
): void {
  if (!remembered.includes(method)) return;
  try {
    storage.setItem(storageKeys.lastMfaMethod, method);
  } catch {
    // Not remembered: the form falls back to its default next time.
  }
}
