import type { Clock } from '../../clock.js';
import type {
  SessionTracker,
  SessionTrackerStore,
} from '../../modules/sessions/session-tracker.store.js';

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
  now: Clock;
  /** How long requests' activity is gathered before the trackers are written (default 15 s). */
  activityWriteMs?: number;
}

/**
 * App sessions on Active Sessions (spec §3, kind `app`): a session tracker beside the terminal's,
 * written when the app session starts, living in storage as long as the session may (so every
 * proxy lists it) and removed when it ends. App sessions cannot be joined (join-policy.ts).
 */
export class AppSessionTracking {
  /** Sessions that had requests since the last write, and when their latest came. */
  private readonly touchedAt = new Map<string, number>();
  private writing: NodeJS.Timeout | undefined;

  constructor(private readonly deps: AppSessionTrackingDeps) {}

  /**
   * A request of the session went through (Active Sessions' last activity). Gathered, and
   * written every `activityWriteMs` at most, so a page of fifty assets is one write.
   */
  touched(sid: string): void {
    this.touchedAt.set(sid, this.deps.now());
    if (this.writing) return;
    this.writing = setTimeout(() => void this.writeTouched(), this.deps.activityWriteMs ?? 15_000);
    this.writing.unref();
  }

  /** Writes the gathered activity now (also what the timer does). */
  async writeTouched(): Promise<void> {
    clearTimeout(this.writing);
    this.writing = undefined;
    const touched = [...this.touchedAt];
    this.touchedAt.clear();
    for (const [sid, at] of touched) {
      await this.deps.store.touch(sid, new Date(at).toISOString()).catch(() => undefined);
    }
  }

  /** `app`: its name, and the host it is served at (a leaf's on this root, too). */
  async opened(session: TrackedAppSession, app: { name: string; addr: string }): Promise<void> {
    const now = this.deps.now();
    const ttlMs = Date.parse(session.expires) - now;
    if (!(ttlMs > 0)) return;
    const tracker: SessionTracker = {
      kind: 'app',
      id: session.sid,
      login: '',
      created: session.created,
      lastActive: session.created,
      serverId: app.name,
      serverHostname: app.name,
      serverAddr: app.addr,
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
    this.touchedAt.delete(sid);
    return this.deps.store.remove(sid);
  }
}
