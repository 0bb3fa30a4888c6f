import { createHash, randomBytes } from 'node:crypto';
import type { Backend, Item } from '../../backend/index.js';
import { systemClock, type Clock } from '../../clock.js';
import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import { marksOf, type LockWatcher } from '../../access-control/locks/lock-watcher.js';
import type {
  WebSession,
  WebSessionService,
} from '../../identity/web-sessions/web-sessions.service.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAuditInBackground } from '../../modules/audit/emit.js';
import type { AppRecord } from './app-kind.js';
import type { AppSessionTracking } from './app-session-tracking.js';
import { SessionMfa } from '../../identity/mfa/session-mfa.js';

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
  /** The app's name, here or (with `leaf`) on the leaf. */
  app: string;
  /** A trusted leaf's app, served on this root's `host` (docs/trusted-clusters.md, "A leaf's web apps in the browser"). */
  leaf?: LeafAppPlace;
  /** The MFA device the web session was signed in with: an `mfa_device` lock ends the session. */
  mfaDevice?: string;
  /** The device that answered the launch's per-session MFA check: the same. */
  sessionMfaDevice?: string;
}

/** Where a leaf's app is served here, and whether its launch passed a per-session MFA check. */
export interface LeafAppPlace {
  cluster: string;
  /** The host name on this root the session's cookie is set on. */
  host: string;
  /** The launch passed a per-session MFA check: the leaf is given this root's word for it. */
  checked: boolean;
}

/**
 * Where a request arrived: its host name, and the app of this cluster served there, if any. An
 * app session matches when it is for that app, or for the leaf's app served at that host.
 */
export interface AppAt {
  host: string;
  local: AppRecord | undefined;
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
  /** A leaf's app: its name there, where, and the root's per-session MFA rule for the user. */
  leaf?: LeafAppPlace & { app: string; sessionMfa: boolean };
}

export interface AppSessionsDeps {
  backend: Backend;
  audit: AuditStore;
  webSessions: WebSessionService;
  access: Pick<AccessResolver, 'resolve'>;
  locks: Pick<LockWatcher, 'isLocked'>;
  /** Lists live app sessions on Active Sessions. */
  tracking?: AppSessionTracking;
  /** A session ended (its connections to a leaf close). */
  onEnded?: (sid: string) => void;
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
    { record: StoredLaunch; identity: AppIdentity; until: number }
  >();

  constructor(private readonly deps: AppSessionsDeps) {
    this.now = deps.now ?? systemClock;
  }

  /**
   * A state for `app`, good once within a minute; `checkedWith`: the device that answered the
   * launch's per-session MFA check.
   */
  launch(session: WebSession, app: AppRecord, checkedWith?: string): Promise<string> {
    return this.storeLaunch(session, app.metadata.name, undefined, checkedWith);
  }

  /** A state for the leaf's app `name`, served at `place.host` here; good once within a minute. */
  launchLeaf(
    session: WebSession,
    name: string,
    place: LeafAppPlace,
    checkedWith?: string,
  ): Promise<string> {
    return this.storeLaunch(session, name, place, checkedWith);
  }

  private async storeLaunch(
    session: WebSession,
    app: string,
    leaf: LeafAppPlace | undefined,
    checkedWith: string | undefined,
  ) {
    const lineage = await this.deps.webSessions.ensureLineageMarked(session);
    if (!lineage) throw new Error('this web session has no lineage to bind an app session to');
    const state = secret();
    const launch: StoredLaunch = {
      user: session.user,
      roles: session.roles,
      accessRequests: session.accessRequests ?? [],
      lineage,
      app,
      ...(leaf ? { leaf } : {}),
      ...(session.mfaDevice ? { mfaDevice: session.mfaDevice } : {}),
      ...(checkedWith ? { sessionMfaDevice: checkedWith } : {}),
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
    at: AppAt,
  ): Promise<{ cookie: string; sid: string; expires: Date; leaf?: string } | null> {
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
    if (!isFor(launch, at)) return null;
    if (!(await this.deps.webSessions.lineageAlive(launch.lineage))) return null;
    const identity = this.judge(launch, at.local);
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
    const { leaf } = launch;
    await this.deps.tracking?.opened(record, {
      name: launch.app,
      addr: leaf ? leaf.host : at.host,
    });
    emitAuditInBackground(this.deps.audit, 'T2007I', {
      user: launch.user,
      sid,
      app_name: launch.app,
      ...(leaf ? { cluster_name: leaf.cluster } : { app_uri: at.local?.spec.uri }),
    });
    return { cookie, sid, expires: webSession, ...(leaf ? { leaf: leaf.cluster } : {}) };
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

  async authenticate(cookie: string | undefined, at: AppAt): Promise<AppIdentity | null> {
    if (!cookie || !isSecret(cookie)) return null;
    const key = hashed(cookie);
    const cached = this.checked.get(key);
    const now = this.now();
    if (cached && cached.until > now && cached.identity.expiresMs > now) {
      return isFor(cached.record, at) ? cached.identity : null;
    }
    this.checked.delete(key);
    const item = await this.deps.backend.get(sessionPrefix + key);
    if (!item) return null;
    const record = JSON.parse(item.value) as StoredAppSession;
    if (!isFor(record, at)) return null;
    const alive = await this.deps.webSessions.lineageAlive(record.lineage);
    const identity = alive ? this.judge(record, at.local) : null;
    if (!identity) {
      await this.end(item, record, alive ? 'access to the app was withdrawn' : 'signed out');
      return null;
    }
    const withSid = { ...identity, sid: record.sid, expiresMs: Date.parse(record.expires) };
    if (this.checked.size > 10_000) this.checked.clear();
    this.checked.set(key, { record, identity: withSid, until: now + checkCacheMs });
    return withSid;
  }

  /** Whether an identity handed out earlier still holds (long-lived WebSockets ask this). */
  async stillValid(cookie: string, at: AppAt): Promise<boolean> {
    return (await this.authenticate(cookie, at)) !== null;
  }

  /**
   * The user as the session's roles make them now: locked, or without this cluster's app, nobody.
   * A leaf's app is the leaf's to allow (its role map, each time the root opens a way to it):
   * here only this cluster's locks count.
   */
  private judge(
    session: StoredLaunch,
    app: AppRecord | undefined,
  ): Omit<AppIdentity, 'sid' | 'expiresMs'> | null {
    const resolved = this.deps.access.resolve(
      session.user,
      session.roles,
      session.accessRequests ?? [],
    );
    const subject = { user: session.user, roles: resolved.roles, ...marksOf(session) };
    if (this.deps.locks.isLocked(subject)) return null;
    const identity = { user: session.user, roles: resolved.roles, traits: resolved.traits };
    if (session.leaf) {
      const sessionMfa = SessionMfa.required(resolved.roleSet);
      return { ...identity, leaf: { ...session.leaf, app: session.app, sessionMfa } };
    }
    if (!app) return null;
    const named = { labels: app.metadata.labels, name: app.metadata.name };
    return resolved.roleSet.canAccess('app', named) ? identity : null;
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
      const app = record.leaf ? undefined : appOf(record.app);
      if (!app && !record.leaf) {
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
    this.deps.onEnded?.(record.sid);
    await this.deps.tracking?.closed(record.sid).catch(() => undefined);
    emitAuditInBackground(this.deps.audit, 'T2011I', {
      user: record.user,
      sid: record.sid,
      app_name: record.app,
      ...(record.leaf ? { cluster_name: record.leaf.cluster } : {}),
      reason,
    });
  }
}

/** Whether a launch or session is for the app at `at`: this cluster's there, or a leaf's. */
function isFor(launch: StoredLaunch, at: AppAt): boolean {
  if (launch.leaf) return launch.leaf.host === at.host;
  return at.local !== undefined && launch.app === at.local.metadata.name;
}
