import { storageKeys } from '../lib/storageKeys';

/**
 * What the client sends to prove who it is: the CSRF token from the page's meta tag and the
 * bearer token kept in localStorage (spec §7). The session lifecycle (src/app/session) writes the
 * bearer; this module only stores and reads it, so the API client never depends on the app.
 */
export interface BearerToken {
  accessToken: string;
  /** Lifetime in seconds, counted from `created`. */
  expiresIn: number;
  /** Client clock (ms) when the token was received. */
  created: number;
  sessionExpires: string;
  /** Milliseconds; 0 means no idle logout. */
  sessionInactiveTimeout: number;
}

function isBearerToken(value: unknown): value is BearerToken {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.accessToken === 'string' &&
    v.accessToken !== '' &&
    typeof v.expiresIn === 'number' &&
    typeof v.created === 'number' &&
    typeof v.sessionInactiveTimeout === 'number'
  );
}

export function readStoredToken(storage: Storage = localStorage): BearerToken | null {
  const raw = storage.getItem(storageKeys.token);
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isBearerToken(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export function storeToken(token: BearerToken, storage: Storage = localStorage): void {
  storage.setItem(storageKeys.token, JSON.stringify(token));
}

export function clearStoredToken(storage: Storage = localStorage): void {
  storage.removeItem(storageKeys.token);
}

export const csrfMetaName = 'grv_csrf_token';

/**
 * Reads the CSRF meta tag once and remembers it: the value never changes during a page's life,
 * and the tag stays in the DOM (unlike the bearer tag, which is removed after reading).
 */
export function createCsrfReader(doc: Document = document): () => string {
  let cached: string | undefined;
  return () => {
    cached ??= doc.querySelector(`meta[name="${csrfMetaName}"]`)?.getAttribute('content') ?? '';
    return cached;
  };
}
