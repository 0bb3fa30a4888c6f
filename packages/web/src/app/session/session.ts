import {
  clearStoredToken,
  readStoredToken,
  storeToken,
  type BearerToken,
} from '../../api/credentials';
import { takeBearerFromMeta } from './bearerMeta';
import { clearLockedNotice } from './storage';

/**
 * The web session as the browser sees it (spec §4). This issue covers start-up only; renewal,
 * idle logout, status polling and logout will live beside it in this folder and reuse
 * `remainingLifetimeMs`.
 */
export interface SessionEnv {
  doc: Document;
  storage: Storage;
  now: () => number;
  /** When this page's navigation began (ms since the epoch): `performance.timeOrigin`. */
  pageStart?: number;
}

export const browserSessionEnv = (): SessionEnv => ({
  doc: document,
  storage: localStorage,
  now: Date.now,
  pageStart: performance.timeOrigin,
});

export function remainingLifetimeMs(token: BearerToken, now: number): number {
  return token.created + token.expiresIn * 1000 - now;
}

/** Valid while the remaining token lifetime is above zero. */
export function isTokenValid(token: BearerToken | null, now: number): token is BearerToken {
  return token !== null && remainingLifetimeMs(token, now) > 0;
}

/**
 * A stored token that another tab wrote after this page was requested (its renewal, or its own
 * page load) is newer than the one in this page: the request carried the older cookie.
 */
function storedIsNewer(stored: BearerToken | null, env: SessionEnv): stored is BearerToken {
  return (
    stored !== null &&
    env.pageStart !== undefined &&
    stored.created > env.pageStart &&
    isTokenValid(stored, env.now())
  );
}

/**
 * Runs once when a private route first renders: the token from the page (it comes from the
 * server with this very page) wins over a stored one, unless another tab stored a newer one
 * since. Returns the valid token, or null after clearing a stale one.
 */
export function startSession(env: SessionEnv): BearerToken | null {
  const fromPage = takeBearerFromMeta(env.doc, env.now());
  const stored = readStoredToken(env.storage);
  if (fromPage && fromPage.accessToken !== stored?.accessToken && !storedIsNewer(stored, env)) {
    storeToken(fromPage, env.storage);
  }
  const token = readStoredToken(env.storage);
  if (isTokenValid(token, env.now())) {
    // Signed in (by any means: password, key, SSO): a lock that ended an earlier session is over.
    clearLockedNotice(env.storage);
    return token;
  }
  clearStoredToken(env.storage);
  return null;
}
