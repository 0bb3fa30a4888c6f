import { keysKeptOnLogout, storageKeys } from '../../lib/storageKeys';

/**
 * Tells other tabs something without leaving it behind: writing a key fires a `storage` event in
 * every other tab of the origin, and removing it at once keeps storage clean.
 */
export function broadcast(storage: Storage, key: string, value: string): void {
  storage.setItem(key, value);
  storage.removeItem(key);
}

/**
 * Logout's clean-up (spec §4): every key goes except the theme and assist settings. The token
 * goes first, since its removal is what tells the other tabs to log out too.
 */
export function clearStorageOnLogout(storage: Storage): void {
  const keys: string[] = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (key !== null && !keysKeptOnLogout.includes(key)) keys.push(key);
  }
  keys.sort((a, b) => Number(b === storageKeys.token) - Number(a === storageKeys.token));
  for (const key of keys) storage.removeItem(key);
}

/** When the user was last active, in any tab (ms since the epoch), if known. */
export function readLastActive(storage: Storage): number | undefined {
  const value = Number(storage.getItem(storageKeys.lastActive) ?? NaN);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

export function writeLastActive(storage: Storage, at: number): void {
  storage.setItem(storageKeys.lastActive, String(at));
}

/** Why the last session ended, when a lock ended it (shown by the sign-in page). */
export function writeLockedNotice(storage: Storage, message: string): void {
  try {
    storage.setItem(storageKeys.lockedNotice, message);
  } catch {
    // Not kept: the sign-in page then shows its plain form, as before.
  }
}

export function readLockedNotice(storage: Storage): string | undefined {
  try {
    return storage.getItem(storageKeys.lockedNotice) ?? undefined;
  } catch {
    return undefined;
  }
}

export function clearLockedNotice(storage: Storage): void {
  try {
    storage.removeItem(storageKeys.lockedNotice);
  } catch {
    // Blocked storage holds no notice either.
  }
}
