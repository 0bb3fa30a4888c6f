import { ApiError, lockReasonOf } from '../../api/apiError';
import { readStoredToken, storeToken, type BearerToken } from '../../api/credentials';
import { storageKeys } from '../../lib/storageKeys';
import { loginUrl } from '../navigation';
import { toBearerToken } from './bearerMeta';
import { sessionTiming, type SessionTiming } from './constants';
import { isTokenValid, remainingLifetimeMs } from './session';
import type { SessionApi } from './sessionApi';
import {
  broadcast,
  clearStorageOnLogout,
  readLastActive,
  writeLastActive,
  writeLockedNotice,
} from './storage';

/**
 * The signed-in session in the browser (spec §4, §9; reference notes §1.2):
 * - every 15 s (and at start, and when the tab becomes visible again) the token is checked: with
 *   less than 180 s left it is renewed, otherwise with more than 30 s left `user/status` is
 *   polled, and a 401/403 from it logs out; so does a 401/403 from the renewal (a network error
 *   or a busy server is tried again at the next check, until the token runs out);
 * - one tab renews at a time: the renewing flag is broadcast through storage (write-then-delete)
 *   and a tab that hears it skips (unless its token would run out first); where the browser has
 *   Web Locks, a lock closes the remaining race between two tabs deciding in the same instant;
 * - tabs share the token in storage: a token another tab renewed is picked up, and a token
 *   another tab removed (logout) logs this tab out;
 * - with an inactivity timeout, activity (key press, pointer move or down, throttled to 15 s) is
 *   stored for all tabs, and idle time over the timeout minus 30 s logs out, checked every 30 s
 *   and at start;
 * - any 401 to an authenticated call is confirmed with a status poll, which logs out when the
 *   session is really gone.
 * Everything that touches time, storage, the window or the network is injected, for tests.
 */

export interface SessionClock {
  now(): number;
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(id: unknown): void;
  setTimeout(callback: () => void, ms: number): unknown;
}

export const browserClock: SessionClock = {
  now: () => Date.now(),
  setInterval: (callback, ms) => window.setInterval(callback, ms),
  clearInterval: (id) => window.clearInterval(id as number),
  setTimeout: (callback, ms) => window.setTimeout(callback, ms),
};

type Listen = Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;

/** Runs `fn` unless another tab holds the renew lock; resolves to undefined when skipped. */
export type RenewLock = <T>(fn: () => Promise<T>) => Promise<T | undefined>;

/** Web Locks where the browser has them (all current ones); no lock otherwise. */
export function webLocksRenewLock(
  locks: LockManager | undefined = globalThis.navigator?.locks,
): RenewLock {
  if (!locks) return (fn) => fn();
  return async <T>(fn: () => Promise<T>) => {
    let result: T | undefined;
    await locks.request('postern_token_renew', { ifAvailable: true }, async (lock) => {
      // Null: another tab holds the lock, so it is renewing right now.
      if (lock) result = await fn();
    });
    return result;
  };
}

export interface SessionControllerDeps {
  storage: Storage;
  clock: SessionClock;
  /** Where `storage` and activity events arrive (the window). */
  win: Listen;
  /** Where `visibilitychange` arrives, and whether the page is visible (the document). */
  doc: Listen & { readonly visibilityState: DocumentVisibilityState };
  api: SessionApi;
  /** A full page navigation. */
  navigate: (url: string) => void;
  /** The current page (path and search), for `redirect_uri` after an involuntary logout. */
  currentPage: () => string;
  renewLock?: RenewLock;
  /**
   * Subscribes to the API client's 401s; returns the unsubscribe. The handler answers with a
   * newer token for the client to try once more, if there is one.
   */
  onUnauthorized?: (
    handler: (error: unknown, usedToken: string) => Promise<string | undefined>,
  ) => () => void;
  timing?: SessionTiming;
}

export interface LogoutOptions {
  /** Session lost rather than asked for: the login page gets `redirect_uri` to come back. */
  involuntary?: boolean;
  /** Whether to delete the web session on the server (not when another tab already did). */
  deleteOnServer?: boolean;
  /** A lock ended the session: its message is kept for the sign-in page to show. */
  lockMessage?: string;
}

export interface SessionController {
  start(): void;
  stop(): void;
  logout(options?: LogoutOptions): Promise<void>;
  /** The current token (changes when this or another tab renews). */
  token(): BearerToken | null;
  subscribe(listener: () => void): () => void;
  /** One round of the token check (renew or poll); the interval calls it. */
  check(): Promise<void>;
  /** One round of the idle check. */
  checkIdle(): void;
}

const activityEvents = ['keydown', 'pointermove', 'pointerdown'] as const;

export function createSessionController(deps: SessionControllerDeps): SessionController {
  const { storage, clock, win, doc, api } = deps;
  const timing = deps.timing ?? sessionTiming;
  const renewLock = deps.renewLock ?? ((fn) => fn());

  let current = readStoredToken(storage);
  const listeners = new Set<() => void>();
  let running = false;
  let loggingOut = false;
  let checking = false;
  let polling = false;
  let otherTabRenewingSince: number | undefined;
  let lastRecordedActivity = -Infinity;
  let cleanups: (() => void)[] = [];

  function setCurrent(token: BearerToken | null) {
    if (token?.accessToken === current?.accessToken) return;
    current = token;
    for (const listener of listeners) listener();
  }

  function otherTabRenewing(): boolean {
    return (
      otherTabRenewingSince !== undefined &&
      clock.now() - otherTabRenewingSince < timing.otherTabRenewalGraceMs
    );
  }

  /** A token in storage, other than `used` and still valid: another tab got a newer one. */
  function renewedElsewhere(used: string | undefined): BearerToken | undefined {
    const latest = readStoredToken(storage);
    if (!latest || latest.accessToken === used) return undefined;
    return isTokenValid(latest, clock.now()) ? latest : undefined;
  }

  /**
   * After the server turned `used` down: is there a newer token, now or within a moment? Another
   * tab may be about to store one (its renewal, or a page load that rotated the bearer).
   */
  async function replacedElsewhere(used: string | undefined): Promise<BearerToken | undefined> {
    const now = renewedElsewhere(used);
    if (now) return now;
    await new Promise((resolve) =>
      clock.setTimeout(() => resolve(undefined), timing.otherTabTokenSettleMs),
    );
    return renewedElsewhere(used);
  }

  async function renew(used: BearerToken): Promise<void> {
    // Another tab is on it, unless waiting for it could outlast this token: a tab closed in the
    // middle of its renewal never says it finished, and its lock is gone with it.
    const runningOut = remainingLifetimeMs(used, clock.now()) < 2 * timing.checkIntervalMs;
    if (otherTabRenewing() && !runningOut) return;
    broadcast(storage, storageKeys.tokenRenew, 'true');
    try {
      await renewLock(async () => {
        // Another tab may have renewed while this one waited for the lock.
        const latest = renewedElsewhere(used.accessToken);
        if (
          latest &&
          remainingLifetimeMs(latest, clock.now()) >= timing.renewWhenRemainingBelowMs
        ) {
          setCurrent(latest);
          return;
        }
        const response = await api.renew();
        if (loggingOut) return;
        const token = toBearerToken(response, clock.now());
        storeToken(token, storage);
        setCurrent(token);
      });
    } catch (err) {
      const latest = await replacedElsewhere(used.accessToken);
      if (latest) {
        setCurrent(latest);
        return;
      }
      if (!running) return;
      // As for the poll: only the server saying the session is gone (or locked) logs out. A
      // network blip or a busy server leaves the token as it is; the next check renews again,
      // and a token that runs out meanwhile logs out there.
      if (!sessionRefused(err)) {
        console.warn('session renewal failed, trying again shortly:', err);
        return;
      }
      console.warn('session renewal refused, logging out:', err);
      await logout({ involuntary: true, lockMessage: lockReasonOf(err) });
    } finally {
      broadcast(storage, storageKeys.tokenRenew, 'false');
    }
  }

  async function pollStatus(): Promise<void> {
    if (polling) return;
    polling = true;
    const used = readStoredToken(storage)?.accessToken;
    try {
      await api.status();
    } catch (err) {
      // Only the server saying the session is gone counts; a network blip does not. Nor does a
      // token that another tab has just replaced.
      if (sessionRefused(err)) {
        const latest = await replacedElsewhere(used);
        if (latest) setCurrent(latest);
        else if (running) await logout({ involuntary: true, lockMessage: lockReasonOf(err) });
      }
    } finally {
      polling = false;
    }
  }

  async function check(): Promise<void> {
    if (!running || checking || loggingOut) return;
    const token = readStoredToken(storage);
    if (!isTokenValid(token, clock.now())) {
      await logout({ involuntary: true });
      return;
    }
    setCurrent(token);
    const left = remainingLifetimeMs(token, clock.now());
    checking = true;
    try {
      if (left < timing.renewWhenRemainingBelowMs) await renew(token);
      else if (left > timing.statusPollMinRemainingMs) await pollStatus();
    } finally {
      checking = false;
    }
  }

  const idleTimeoutMs = () => readStoredToken(storage)?.sessionInactiveTimeout ?? 0;

  function checkIdle(): void {
    if (!running || loggingOut) return;
    const timeout = idleTimeoutMs();
    if (timeout <= 0) return;
    const now = clock.now();
    const lastActive = readLastActive(storage);
    if (lastActive === undefined) {
      writeLastActive(storage, now);
      return;
    }
    if (now - lastActive > timeout - timing.inactivityMarginMs) void logout({ involuntary: true });
  }

  function recordActivity(): void {
    const now = clock.now();
    if (now - lastRecordedActivity < timing.activityThrottleMs) return;
    lastRecordedActivity = now;
    writeLastActive(storage, now);
  }

  function onStorage(event: Event): void {
    const { key, newValue, storageArea } = event as StorageEvent;
    if (storageArea && storageArea !== storage) return;
    if (key === storageKeys.tokenRenew) {
      if (newValue === 'true') otherTabRenewingSince = clock.now();
      else if (newValue === 'false') otherTabRenewingSince = undefined;
      return;
    }
    // `key === null`: another tab cleared all of storage.
    if (key !== storageKeys.token && key !== null) return;
    const latest = readStoredToken(storage);
    if (!latest) {
      // Logged out elsewhere; that tab already deleted the web session.
      void logout({ involuntary: true, deleteOnServer: false });
      return;
    }
    otherTabRenewingSince = undefined;
    setCurrent(latest);
  }

  function onVisibility(): void {
    // Background tabs get their timers throttled; catch up as soon as the user is back.
    if (doc.visibilityState !== 'visible') return;
    checkIdle();
    void check();
  }

  function listen(target: Listen, type: string, handler: (event: Event) => void) {
    target.addEventListener(type, handler, { passive: true });
    cleanups.push(() => target.removeEventListener(type, handler));
  }

  function every(ms: number, callback: () => void) {
    const id = clock.setInterval(callback, ms);
    cleanups.push(() => clock.clearInterval(id));
  }

  function start(): void {
    if (running || loggingOut) return;
    running = true;
    listen(win, 'storage', onStorage);
    listen(doc, 'visibilitychange', onVisibility);
    if (deps.onUnauthorized) cleanups.push(deps.onUnauthorized(onUnauthorized));
    if (idleTimeoutMs() > 0) {
      for (const type of activityEvents) listen(win, type, recordActivity);
      every(timing.inactivityCheckIntervalMs, checkIdle);
      checkIdle();
    }
    every(timing.checkIntervalMs, () => void check());
    void check();
  }

  function stop(): void {
    running = false;
    for (const cleanup of cleanups) cleanup();
    cleanups = [];
  }

  /**
   * A 401 somewhere. Most often the call raced a renewal (the cookie already names the new
   * session): then the newer token is handed back for one more try. Otherwise the server is
   * asked whether the session still exists, and the poll logs out if it does not.
   */
  async function onUnauthorized(_error: unknown, usedToken: string): Promise<string | undefined> {
    if (!running || loggingOut) return undefined;
    const latest = await replacedElsewhere(usedToken);
    if (latest) {
      setCurrent(latest);
      return latest.accessToken;
    }
    if (running && !loggingOut) void pollStatus();
    return undefined;
  }

  async function logout(options: LogoutOptions = {}): Promise<void> {
    if (loggingOut) return;
    loggingOut = true;
    const { involuntary = false, deleteOnServer = true, lockMessage } = options;
    // Read before anything changes: the page to come back to after signing in again.
    const target = involuntary ? loginUrl(deps.currentPage()) : loginUrl();
    stop();
    if (deleteOnServer) {
      // Best effort, and never a reason to stay: the storage and the page go regardless.
      await Promise.race([
        api.deleteSession().catch(() => undefined),
        new Promise((resolve) =>
          clock.setTimeout(() => resolve(undefined), timing.logoutRequestTimeoutMs),
        ),
      ]);
    }
    clearStorageOnLogout(storage);
    // The sign-in page says why the session ended.
    if (lockMessage !== undefined) writeLockedNotice(storage, lockMessage);
    setCurrent(null);
    deps.navigate(target);
  }

  return {
    start,
    stop,
    logout,
    token: () => current,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    check,
    checkIdle,
  };
}

/** The server turned the session down (gone, locked): not a network blip nor a busy server. */
function sessionRefused(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 401 || err.status === 403);
}
