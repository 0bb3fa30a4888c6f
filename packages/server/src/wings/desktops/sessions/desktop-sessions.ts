import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { sessionEndReasons } from '@postern/contracts';
import type { BlobStore } from '../../../blobs/blob-store.js';
import type { Clock } from '../../../clock.js';
import { emitAuditInBackground } from '../../../modules/audit/emit.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import {
  startDesktopRecording,
  type DesktopRecording,
} from '../../../modules/desktop-recordings/desktop-recorder.js';
import type { SessionHub } from '../../../modules/sessions/session-hub.js';
import type { SessionTracker } from '../../../modules/sessions/session-tracker.store.js';
import { shownAddr } from '../desktop-kind.js';
import { startRdpRelay } from '../rdp/rdp-relay.js';
import { startVncRelay, type VncSession } from '../rfb/index.js';
import type { DesktopGrant } from './desktop-access.js';

export interface DesktopSessionsDeps {
  hub: Pick<SessionHub, 'track' | 'guard' | 'proxyId' | 'assertAccepting'>;
  audit: AuditStore;
  /** Where recordings go (the platform's blob store, shared with terminal recordings). */
  blobs: BlobStore;
  clusterName: string;
  now: Clock;
  /** Whether the sign-in a session belongs to is still on (signing out ends its desktops). */
  lineageAlive(lineage: string): Promise<boolean>;
  /** How often the sign-in is checked (default 5 s). */
  signInCheckMs?: number;
  onError(error: unknown): void;
}

/** One connection's two ends, as the connect socket hands them over. */
export interface DesktopConnection {
  /** The browser's bytes (noVNC), after the in-band sign-in. */
  browser: Duplex;
  /** A stream to the desktop, direct or through its agent's tunnel. */
  desktop: Duplex;
  remoteAddr: string;
  /** The screen the browser has room for: an RDP session is opened at this size. */
  size: { width: number; height: number };
  /** The desktop signed the proxy in: the browser is told its session is on. */
  onReady(): void;
  /** Ends the browser's side with a reason it shows (a lock, a sign-out). */
  closeBrowser(reason: string): void;
}

/**
 * The live desktop sessions of this proxy. Each one is a VNC relay (wings/desktops/rfb) with what
 * makes it a session: listed in Active Sessions (`desktop`), recorded when the roles say so,
 * judged again on every role, user or lock change and ended with the reason when access goes,
 * ended when its sign-in ends, and audited from start to end (TDP00I/W, TDP01I, and TDP02I/03I for
 * each clipboard copy).
 */
export class DesktopSessions {
  private readonly live = new Set<LiveDesktop>();

  constructor(private readonly deps: DesktopSessionsDeps) {}

  /** Runs a session until it ends; rejects (audited as denied) when it cannot start. */
  async run(grant: DesktopGrant, connection: DesktopConnection): Promise<void> {
    const session = new LiveDesktop(this.deps, grant, connection);
    this.live.add(session);
    try {
      await session.run();
    } finally {
      this.live.delete(session);
    }
  }

  /** Audits a refusal that happened before a session could start. */
  denied(user: string, desktopName: string, addr: string, login: string, reason: string): void {
    emitAuditInBackground(this.deps.audit, 'TDP00W', {
      user,
      desktop_name: desktopName,
      desktop_addr: addr,
      windows_user: login,
      success: false,
      error: reason,
    });
  }

  count(): number {
    return this.live.size;
  }

  /** Ends every session (the proxy stops) and waits for their recordings to be sealed. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.live].map((session) => session.end(sessionEndReasons.shutdown)));
  }
}

class LiveDesktop {
  private readonly sid = randomUUID();
  private readonly startedAt: number;
  private relay: VncSession | undefined;
  private recording: DesktopRecording | undefined;
  private recordingFailed = false;
  private endReason: string | undefined;
  private finished: Promise<void> | undefined;

  constructor(
    private readonly deps: DesktopSessionsDeps,
    private readonly grant: DesktopGrant,
    private readonly connection: DesktopConnection,
  ) {
    this.startedAt = deps.now();
  }

  private get fields() {
    const { desktop, login, user } = this.grant;
    return {
      sid: this.sid,
      user,
      desktop_name: desktop.metadata.name,
      desktop_addr: shownAddr(desktop),
      desktop_labels: desktop.metadata.labels,
      windows_user: login,
      proto: desktop.spec.protocol,
      ...(this.connection.remoteAddr ? { addr_remote: this.connection.remoteAddr } : {}),
    };
  }

  async run(): Promise<void> {
    const { grant, deps } = this;
    try {
      deps.hub.assertAccepting();
      this.relay = await this.startRelay();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      emitAuditInBackground(deps.audit, 'TDP00W', {
        ...this.fields,
        success: false,
        error: reason,
      });
      throw error;
    }
    emitAuditInBackground(deps.audit, 'TDP00I', { ...this.fields, success: true });
    if (grant.record) this.startRecording(this.relay);

    const untrack = deps.hub.track(() => this.tracker());
    const unguard = deps.hub.guard({
      recheck: () => grant.recheck(),
      revoke: (reason) => void this.end(reason),
    });
    const signIn = setInterval(() => this.checkSignIn(), deps.signInCheckMs ?? 5000);
    signIn.unref();
    try {
      const closed = await this.relay.closed;
      await this.end(closed.reason);
    } finally {
      clearInterval(signIn);
      unguard();
      untrack();
    }
  }

  /** VNC is relayed as it is; RDP is spoken by the proxy and served to noVNC as VNC. */
  private startRelay(): Promise<VncSession> {
    const { grant, connection } = this;
    const { desktop } = grant;
    if (desktop.spec.protocol === 'rdp') {
      return startRdpRelay({
        browser: connection.browser,
        desktop: connection.desktop,
        login: { user: grant.login, password: desktop.spec.rdp_passwords?.[grant.login] ?? '' },
        ...connection.size,
        desktopName: desktop.metadata.name,
        clipboard: grant.clipboard,
        onClipboard: (direction, bytes, allowed) => this.clipboard(direction, bytes, allowed),
        onDesktopReady: () => connection.onReady(),
      });
    }
    return startVncRelay({
      browser: connection.browser,
      desktop: connection.desktop,
      password: desktop.spec.vnc_password,
      // Only the recorder reads the screen's pixels: unrecorded, the relay leaves them alone.
      pixels: grant.record,
      clipboard: { toDesktop: grant.clipboard, fromDesktop: grant.clipboard },
      onClipboard: (direction, bytes, allowed) => this.clipboard(direction, bytes, allowed),
      desktopName: desktop.metadata.name,
      onDesktopReady: () => connection.onReady(),
    });
  }

  /** Ends the session (idempotent) and resolves once its recording is sealed and audited. */
  end(reason: string): Promise<void> {
    if (!this.relay) return Promise.resolve();
    this.endReason ??= reason;
    this.finished ??= this.finish();
    return this.finished;
  }

  private async finish(): Promise<void> {
    const stoppedAt = this.deps.now();
    this.connection.closeBrowser(this.endReason ?? '');
    this.relay?.close(this.endReason ?? '');
    await this.recording?.close(stoppedAt);
    emitAuditInBackground(this.deps.audit, 'TDP01I', {
      ...this.fields,
      participants: [this.grant.user],
      recorded: this.recording !== undefined && !this.recordingFailed,
      session_start: new Date(this.startedAt).toISOString(),
      session_stop: new Date(stoppedAt).toISOString(),
      reason: this.endReason,
    });
  }

  private startRecording(relay: VncSession): void {
    this.recording = startDesktopRecording({
      sid: this.sid,
      framebuffer: relay.framebuffer,
      blobs: this.deps.blobs,
      now: this.deps.now,
      participants: [this.grant.user],
      desktopName: this.grant.desktop.metadata.name,
      onFailure: (reason) => {
        this.recordingFailed = true;
        this.deps.onError(new Error(`desktop recording ${this.sid} stopped: ${reason}`));
      },
    });
  }

  private clipboard(direction: 'to-desktop' | 'from-desktop', bytes: number, allowed: boolean) {
    if (!allowed) return;
    const toDesktop = direction === 'to-desktop';
    this.recording?.clipboard(toDesktop ? 'in' : 'out', bytes);
    emitAuditInBackground(this.deps.audit, toDesktop ? 'TDP02I' : 'TDP03I', {
      ...this.fields,
      length: bytes,
    });
  }

  private checkSignIn(): void {
    const { lineage } = this.grant;
    if (!lineage) return;
    this.deps.lineageAlive(lineage).then(
      (alive) => {
        if (!alive) void this.end('signed out');
      },
      (error: unknown) => this.deps.onError(error),
    );
  }

  private tracker(): SessionTracker {
    const { desktop, login, user, roles } = this.grant;
    const created = new Date(this.startedAt).toISOString();
    const framebuffer = this.relay?.framebuffer;
    return {
      kind: 'desktop',
      id: this.sid,
      login,
      created,
      lastActive: new Date(this.deps.now()).toISOString(),
      serverId: desktop.metadata.name,
      serverHostname: desktop.metadata.name,
      serverAddr: desktop.spec.addr,
      clusterName: this.deps.clusterName,
      owner: user,
      ownerRoles: roles,
      terminal: { w: framebuffer?.width ?? 0, h: framebuffer?.height ?? 0 },
      parties: [{ id: this.sid, user, mode: 'peer', lastActive: created }],
      moderated: false,
      command: '',
      proxyId: this.deps.hub.proxyId,
      expires: '',
      traceId: '',
    };
  }
}
