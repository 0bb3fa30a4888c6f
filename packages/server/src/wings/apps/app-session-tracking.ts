import type { Clock } from '../../clock.js';
import type {
  SessionTracker,
  SessionTrackerStore,
} from '../../modules/sessions/session-tracker.store.js';
import type { AppRecord } from './app-kind.js';

/** What Active Sessions needs to know of one app session. */
export interface TrackedAppSession {
  sid: string;
  user: string;
  roles: string[];
  /** RFC 3339. */
  created: string;
  expires: string;
}

export interface AppSessionTrackingDeps {
  store: SessionTrackerStore;
  /** The hub's id of this proxy process. */
  proxyId: string;
  clusterName: string;
  /** The host name the app is served at: the session's address. */
  publicHostOf: (app: AppRecord) => string;
  now: Clock;
}

/**
 * App sessions on Active Sessions (spec §3, kind `app`): a session tracker beside the terminal's,
 * written when the app session starts, living in storage as long as the session may (so every
 * proxy lists it) and removed when it ends. App sessions cannot be joined (join-policy.ts).
 */
export class AppSessionTracking {
  constructor(private readonly deps: AppSessionTrackingDeps) {}

  async opened(session: TrackedAppSession, app: AppRecord): Promise<void> {
    const now = this.deps.now();
    const ttlMs = Date.parse(session.expires) - now;
    if (!(ttlMs > 0)) return;
    const tracker: SessionTracker = {
      kind: 'app',
      id: session.sid,
      login: '',
      created: session.created,
      lastActive: session.created,
      serverId: app.metadata.name,
      serverHostname: app.metadata.name,
      serverAddr: this.deps.publicHostOf(app),
      clusterName: this.deps.clusterName,
      owner: session.user,
      ownerRoles: session.roles,
      terminal: { w: 0, h: 0 },
      parties: [{ id: session.sid, user: session.user, mode: 'peer', lastActive: session.created }],
      moderated: false,
      command: '',
      proxyId: this.deps.proxyId,
      expires: session.expires,
      traceId: '',
    };
    await this.deps.store.put(tracker, ttlMs, now);
  }

  closed(sid: string): Promise<void> {
    return this.deps.store.remove(sid);
  }
}
