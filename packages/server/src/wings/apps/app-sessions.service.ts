import { createHash, randomBytes } from 'node:crypto';
import type { Backend, Item } from '../../backend/index.js';
import { systemClock, type Clock } from '../../clock.js';
import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import type { LockWatcher } from '../../access-control/locks/lock-watcher.js';
import type {
  WebSession,
  WebSessionService,
} from '../../identity/web-sessions/web-sessions.service.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAuditInBackground } from '../../modules/audit/emit.js';
import type { AppRecord } from './app-kind.js';
import type { AppSessionTracking } from './app-session-tracking.js';

/** A launch's state lives this long: the browser goes straight from the launcher to the app. */
export const launchStateTtlMs = 60_000;
/** How long a checked app session is trusted before storage, locks and roles are asked again. */
const checkCacheMs = 1_000;

interface StoredLaunch {
  user: string;
  roles: string[];
  /** The access requests the web session had assumed: their roles count while approved. */
  accessRequests?: string[];
  lineage: string;
  app: string;
}

interface StoredAppSession extends StoredLaunch {
  /** A short public id for audit and logs (not the cookie). */
  sid: string;
  created: string;
  expires: string;
}

/** Who a request to an app comes from, once its cookie checked out. */
export interface AppIdentity {
  sid: string;
  user: string;
  roles: string[];
  traits: Record<string, string[]>;
  /** ms: the app session's end (the web session's). */
  expiresMs: number;
}

export interface AppSessionsDeps {
  backend: Backend;
  audit: AuditStore;
  webSessions: WebSessionService;
  access: Pick<AccessResolver, 'resolve'>;
  locks: Pick<LockWatcher, 'isLocked'>;
  /** Lists live app sessions on Active Sessions. */
  tracking?: AppSessionTracking;
  now?: Clock;
}

const statePrefix = '/app_launch_states/';
const sessionPrefix = '/app_sessions/';
const secret = () => randomBytes(32).toString('base64url');
const hashed = (value: string) => createHash('sha256').update(value).digest('hex');
const isSecret = (value: string) => /^[A-Za-z0-9_-]{43}$/.test(value);

/**
 * App sessions (docs/apps.md, "Sessions"). The launcher asks, with the user's web session, for a
 * single-use state bound to one app; the app's own origin exchanges it for the app session, whose
 * cookie is set on that origin only. An app session is good while the sign-in it came from is
 * (its web session lineage: logout ends it), its user is not locked and their roles still reach
 * the app; it never outlives the web session. Storage keeps only hashes of states and cookies.
 */
export class AppSessionsService {
  private readonly now: Clock;
  /** Sessions checked lately, by cookie hash: their app, who, and until when to trust that. */
  private readonly checked = new Map<
    string,
    { app: string; identity: AppIdentity; until: number }
  >();

  constructor(private readonly deps: AppSessionsDeps) {
    this.now = deps.now ?? systemClock;
  }

  /** A state for `app`, good once within a minute. */
  async launch(session: WebSession, app: AppRecord): Promise<string> {
    const lineage = await this.deps.webSessions.ensureLineageMarked(session);
    if (!lineage) throw new Error('this web session has no lineage to bind an app session to');
    const state = secret();
    const launch: StoredLaunch = {
      user: session.user,
      roles: session.roles,
      accessRequests: session.accessRequests ?? [],
      lineage,
      app: app.metadata.name,
    };
    await this.deps.backend.create({
      key: statePrefix + hashed(state),
      value: JSON.stringify(launch),
      expires: new Date(this.now() + launchStateTtlMs),
    });
    return state;
  }

  /**
   * Turns a state into an app session for `app`: refused (null) when the state is unknown,
   * used, for another app, or its sign-in has ended. The state is gone either way.
   */
  async exchange(
    state: string,
    app: AppRecord,
  ): Promise<{ cookie: string; sid: string; expires: Date } | null> {
    if (!isSecret(state)) return null;
    const key = statePrefix + hashed(state);
    const item = await this.deps.backend.get(key);
    if (!item) return null;
    // Single use: whoever deletes it first holds it; a replay finds it gone.
    try {
      await this.deps.backend.delete(key, item.revision);
    } catch {
      return null;
    }
    const launch = JSON.parse(item.value) as StoredLaunch;
    if (launch.app !== app.metadata.name) return null;
    if (!(await this.deps.webSessions.lineageAlive(launch.lineage))) return null;
    const identity = this.judge(launch, app);
    if (!identity) return null;
    const webSession = await this.lineageEnd(launch.lineage);
    const cookie = secret();
    const sid = hashed(cookie).slice(0, 32);
    const record: StoredAppSession = {
      ...launch,
      sid,
      created: new Date(this.now()).toISOString(),
      expires: webSession.toISOString(),
    };
    await this.deps.backend.create({
      key: sessionPrefix + hashed(cookie),
      value: JSON.stringify(record),
      expires: webSession,
    });
    await this.deps.tracking?.opened(record, app);
    emitAuditInBackground(this.deps.audit, 'T2007I', {
      user: launch.user,
      sid,
      app_name: app.metadata.name,
      app_uri: app.spec.uri,
    });
    return { cookie, sid, expires: webSession };
  }

  /** The identity behind an app session cookie for `app`, or null (then the browser signs in). */
  /** A request of the session went through: its last activity on Active Sessions. */
  touched(sid: string): void {
    this.deps.tracking?.touched(sid);
  }

  /** Writes the sessions' gathered activity now instead of at the next write (a stop, tests). */
  async writeActivity(): Promise<void> {
    await this.deps.tracking?.writeTouched();
  }

  async authenticate(cookie: string | undefined, app: AppRecord): Promise<AppIdentity | null> {
    if (!cookie || !isSecret(cookie)) return null;
    const key = hashed(cookie);
    const cached = this.checked.get(key);
    const now = this.now();
    if (cached && cached.until > now && cached.identity.expiresMs > now) {
      return cached.app === app.metadata.name ? cached.identity : null;
    }
    this.checked.delete(key);
    const item = await this.deps.backend.get(sessionPrefix + key);
    if (!item) return null;
    const record = JSON.parse(item.value) as StoredAppSession;
    if (record.app !== app.metadata.name) return null;
    const alive = await this.deps.webSessions.lineageAlive(record.lineage);
    const identity = alive ? this.judge(record, app) : null;
    if (!identity) {
      await this.end(item, record, alive ? 'access to the app was withdrawn' : 'signed out');
      return null;
    }
    const withSid = { ...identity, sid: record.sid, expiresMs: Date.parse(record.expires) };
    if (this.checked.size > 10_000) this.checked.clear();
    this.checked.set(key, { app: record.app, identity: withSid, until: now + checkCacheMs });
    return withSid;
  }

  /** Whether an identity handed out earlier still holds (long-lived WebSockets ask this). */
  async stillValid(cookie: string, app: AppRecord): Promise<boolean> {
    return (await this.authenticate(cookie, app)) !== null;
  }

  /** The user as the session's roles make them now: locked or without the app, nobody. */
  private judge(
    session: StoredLaunch,
    app: AppRecord,
  ): Omit<AppIdentity, 'sid' | 'expiresMs'> | null {
    const resolved = this.deps.access.resolve(
      session.user,
      session.roles,
      session.accessRequests ?? [],
    );
    if (this.deps.locks.isLocked({ user: session.user, roles: resolved.roles })) return null;
    if (
      !resolved.roleSet.canAccess('app', { labels: app.metadata.labels, name: app.metadata.name })
    )
      return null;
    return { user: session.user, roles: resolved.roles, traits: resolved.traits };
  }

  /** When the sign-in's sessions end: the lineage marker's expiry. */
  private async lineageEnd(lineage: string): Promise<Date> {
    const end = await this.deps.webSessions.lineageExpires(lineage);
    return end ?? new Date(this.now() + 60_000);
  }

  /**
   * Ends every stored app session whose sign-in ended, whose user was locked or lost the app, or
   * whose app is gone, without waiting for its next request: Active Sessions and the audit log
   * learn of a sign-out within one sweep. Each proxy sweeps; the one that deletes a session ends it.
   */
  async sweep(appOf: (name: string) => AppRecord | undefined): Promise<void> {
    const { items } = await this.deps.backend.list({ prefix: sessionPrefix });
    for (const item of items) {
      const record = JSON.parse(item.value) as StoredAppSession;
      const app = appOf(record.app);
      if (!app) {
        await this.end(item, record, 'the app was removed');
        continue;
      }
      if (!(await this.deps.webSessions.lineageAlive(record.lineage))) {
        await this.end(item, record, 'signed out');
      } else if (!this.judge(record, app)) {
        await this.end(item, record, 'access to the app was withdrawn');
      }
    }
  }

  /** Deletes the session (if no one else did first), then says so: Active Sessions, audit. */
  private async end(item: Item, record: StoredAppSession, reason: string): Promise<void> {
    try {
      await this.deps.backend.delete(item.key, item.revision);
    } catch {
      return; // Another request or proxy ended it first, and said so.
    }
    this.checked.delete(item.key.slice(sessionPrefix.length));
    await this.deps.tracking?.closed(record.sid).catch(() => undefined);
    emitAuditInBackground(this.deps.audit, 'T2011I', {
      user: record.user,
      sid: record.sid,
      app_name: record.app,
      reason,
    });
  }
}
