import { AlreadyExistsError, type Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import { emitAudit } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import type { AuditCode } from '@postern/contracts';
import type { RecordingStore } from '../recordings/recording-store.js';
import type { SessionTracker } from './session-tracker.store.js';

/** What the audit log says of a session whose proxy died under it. */
export const proxyLostReason = 'the proxy holding the session stopped';

/** Each kind's own end event (a terminal's and a Kubernetes exec's are `session.end`). */
const endEventCodes: Partial<Record<SessionTracker['kind'], AuditCode>> = {
  db: 'TDB01I',
  desktop: 'TDP01I',
  app: 'T2011I',
};

/** `/session_recoveries/<sid>`: the one proxy that writes a lost session's end claims it here. */
const claimsPrefix = '/session_recoveries/';
const claimTtlMs = 24 * 3600_000;

export interface DeadProxyRecoveryDeps {
  backend: Backend;
  audit: AuditStore;
  now: Clock;
  /**
   * This proxy's id, whether the list of live proxies can be trusted now, and (optionally) a
   * subscription to proxies leaving it, which starts a look at once.
   */
  proxies: {
    id: string;
    isCurrent(): boolean;
    list(): { id: string }[];
    onLeave?(listener: () => void): () => void;
  };
  /** Every live session of the cluster (the watched trackers), and removing one. */
  sessions: { list(): SessionTracker[]; forget(sid: string): Promise<void> };
  recordings: RecordingStore;
  /** How often to look besides when a proxy leaves (default 5 s). */
  intervalMs?: number;
  onError: (error: unknown, what: string) => void;
  /** Told what each pass recovered (logs, tests). */
  onRecovered?: (recovered: { sessions: string[]; recordings: string[] }) => void;
}

/**
 * What a proxy that died (SIGKILL, a lost host) leaves, finished by the survivors
 * (docs/high-availability.md, "When a proxy dies"): its sessions' trackers get an end event with
 * the error in the audit log, and its open recordings are adopted from the spool and sealed.
 * A proxy counts as dead once its registry record expired. Every survivor looks; a claim in the
 * backend (sessions) or the spool (recordings) makes exactly one of them act.
 */
export class DeadProxyRecovery {
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private running: Promise<void> | undefined;
  /** A look asked for while one ran: that one may have read the list before the change. */
  private again: Promise<void> | undefined;

  constructor(private readonly deps: DeadProxyRecoveryDeps) {}

  start(): void {
    this.timer ??= setInterval(() => void this.runOnce(), this.deps.intervalMs ?? 5000);
    this.timer.unref();
    // A proxy's record going is the moment its sessions are known lost: look now, not in 5 s.
    this.unsubscribe ??= this.deps.proxies.onLeave?.(() => void this.lookAfterChange());
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.again;
    await this.running;
  }

  /** One look: ends the lost sessions and seals the lost recordings found now. */
  runOnce(): Promise<void> {
    this.running ??= this.recover()
      .catch((error: unknown) => this.deps.onError(error, 'recovering after a lost proxy failed'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /**
   * A look that starts after the list changed: at once when none runs, else right after the
   * running one (which may have missed the change). Several changes meanwhile share that look.
   */
  lookAfterChange(): Promise<void> {
    if (!this.running) return this.runOnce();
    this.again ??= this.running.then(() => {
      this.again = undefined;
      return this.runOnce();
    });
    return this.again;
  }

  private async recover(): Promise<void> {
    const { proxies } = this.deps;
    if (!proxies.isCurrent()) return;
    const live = new Set(proxies.list().map((proxy) => proxy.id));
    live.add(proxies.id);
    const isLive = (id: string) => live.has(id);
    // Recordings first, so each end event can say whether its recording was kept.
    const recordings = (await this.deps.recordings.recover?.(isLive)) ?? [];
    const sessions: string[] = [];
    for (const tracker of this.deps.sessions.list()) {
      if (isLive(tracker.proxyId)) continue;
      if (await this.endLost(tracker, recordings.includes(tracker.id))) sessions.push(tracker.id);
    }
    if (sessions.length > 0 || recordings.length > 0) {
      this.deps.onRecovered?.({ sessions, recordings });
    }
  }

  /** Writes the lost session's end (once in the cluster) and removes its tracker. */
  private async endLost(tracker: SessionTracker, sealedHere: boolean): Promise<boolean> {
    const now = this.deps.now();
    try {
      await this.deps.backend.create({
        key: claimsPrefix + tracker.id,
        value: JSON.stringify({ by: this.deps.proxies.id }),
        expires: new Date(now + claimTtlMs),
      });
    } catch (error) {
      if (error instanceof AlreadyExistsError) return false;
      throw error;
    }
    // Another survivor may have adopted the recording (and be sealing it) while this one won
    // the session's claim: the recording is kept all the same.
    const recorded = sealedHere || (await this.recordingKept(tracker.id));
    await emitAudit(this.deps.audit, endEventCodes[tracker.kind] ?? 'T2004I', {
      sid: tracker.id,
      login: tracker.login,
      server_id: tracker.serverId,
      server_hostname: tracker.serverHostname,
      server_addr: tracker.serverAddr,
      proto: tracker.kind === 'k8s' ? 'kube' : tracker.kind,
      namespace: 'default',
      ...(tracker.traceId ? { trace_id: tracker.traceId } : {}),
      user: tracker.owner,
      reason: proxyLostReason,
      error: proxyLostReason,
      participants: [...new Set(tracker.parties.map((party) => party.user))],
      interactive: tracker.command === '',
      session_start: tracker.created,
      session_stop: new Date(now).toISOString(),
      session_recording: recorded ? 'on' : 'off',
      lost_proxy: tracker.proxyId,
    });
    await this.deps.sessions.forget(tracker.id);
    return true;
  }

  /** Whether the session's recording exists: in the spool (whoever holds it) or stored. */
  private async recordingKept(sid: string): Promise<boolean> {
    try {
      const cast = await this.deps.recordings.openCast(sid);
      cast?.destroy();
      return cast !== undefined;
    } catch {
      return false;
    }
  }
}
