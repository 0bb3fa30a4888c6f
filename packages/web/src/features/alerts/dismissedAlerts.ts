import { storageKeys } from '../../lib/storageKeys';

/**
 * The alerts this browser's user closed, by name. Kept across sign-ins (a closed banner stays
 * closed), and only for alerts still in force, so the list never grows past what is posted.
 */
export function readDismissed(storage: Storage = localStorage): string[] {
  try {
    const value: unknown = JSON.parse(storage.getItem(storageKeys.dismissedAlerts) ?? '[]');
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

export function writeDismissed(
  dismissed: readonly string[],
  inForce: readonly string[],
  storage: Storage = localStorage,
): void {
  const kept = dismissed.filter((id) => inForce.includes(id));
  storage.setItem(storageKeys.dismissedAlerts, JSON.stringify(kept));
}
