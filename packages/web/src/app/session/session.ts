import {
  clearStoredToken,
  readStoredToken,
  storeToken,
  type BearerToken,
} from '../../api/credentials';
import { takeBearerFromMeta } from './bearerMeta';

/**
 * The web session as the browser sees it (spec §4). This issue covers start-up only; renewal,
 * idle logout, status polling and logout will live beside it in this folder and reuse
 * `remainingLifetimeMs`.
 */
export interface SessionEnv {
  doc: Document;
  storage: Storage;
  now: () => number;
}

export const browserSessionEnv = (): SessionEnv => ({
  doc: document,
  storage: localStorage,
  now: Date.now,
});

export function remainingLifetimeMs(token: BearerToken, now: number): number {
  return token.created + token.expiresIn * 1000 - now;
}

/** Valid while the remaining token lifetime is above zero. */
export function isTokenValid(token: BearerToken | null, now: number): token is BearerToken {
  return token !== null && remainingLifetimeMs(token, now) > 0;
}

/**
 * Runs once when a private route first renders: a fresh token from the page wins over a stored
 * one (it comes from the server with this very page). Returns the valid token, or null after
 * clearing a stale one.
 */
export function startSession(env: SessionEnv): BearerToken | null {
  const fromPage = takeBearerFromMeta(env.doc, env.now());
  if (fromPage) storeToken(fromPage, env.storage);
  const token = fromPage ?? readStoredToken(env.storage);
  if (isTokenValid(token, env.now())) return token;
  clearStoredToken(env.storage);
  return null;
}
