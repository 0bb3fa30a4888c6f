import type { AuditStore } from '../../modules/audit/index.js';
import { emitAuditInBackground } from '../../modules/audit/emit.js';
import type { AppIdentity } from './app-sessions.service.js';

/** Requests gathered per session before one `app.session.chunk` event is written. */
const chunkRequests = 100;
/** ...or after this long, whichever comes first. */
const chunkMs = 10_000;

interface Pending {
  app: string;
  user: string;
  requests: { method: string; path: string; status: number }[];
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The requests of app sessions, as audit events in chunks (docs/apps.md, "Audit"): one event per
 * hundred requests or ten seconds of a session, with each request's method, path and status, so
 * a page load of fifty assets is one event, not fifty.
 */
export class AppRequestAudit {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly audit: AuditStore) {}

  /** `app`: its name (a leaf's, for a leaf's app served here). */
  record(
    app: string,
    identity: AppIdentity,
    request: { method: string; path: string; status: number },
  ): void {
    let entry = this.pending.get(identity.sid);
    if (!entry) {
      const sid = identity.sid;
      entry = {
        app,
        user: identity.user,
        requests: [],
        timer: setTimeout(() => this.flush(sid), chunkMs),
      };
      entry.timer.unref();
      this.pending.set(sid, entry);
    }
    entry.requests.push(request);
    if (entry.requests.length >= chunkRequests) this.flush(identity.sid);
  }

  /** Writes every pending chunk (the server is stopping). */
  flushAll(): void {
    for (const sid of [...this.pending.keys()]) this.flush(sid);
  }

  /** Writes a session's pending chunk now (its connection ended). */
  flush(sid: string): void {
    const entry = this.pending.get(sid);
    if (!entry) return;
    this.pending.delete(sid);
    clearTimeout(entry.timer);
    emitAuditInBackground(this.audit, 'T2008I', {
      user: entry.user,
      sid,
      app_name: entry.app,
      count: entry.requests.length,
      requests: entry.requests,
    });
  }
}
