import { randomUUID } from 'node:crypto';
import {
  sessionEndReasons,
  terminalFlowControl,
  type ActiveSessionJson,
  type ParticipantMode,
  type RecordSessionMode,
} from '@postern/contracts';
import type { Client, ClientChannel } from 'ssh2';
import { emitAuditInBackground } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import { OutputGate, type Backlog } from './output-gate.js';
import type { EndKind, Party } from './party.js';
import type { ScreenMirror } from './screen-mirror.js';
import { toActiveSessionJson } from './session-json.js';
import { SessionRecording, type RecordingPolicy } from './session-recording.js';
import type { SessionTracker } from './session-tracker.store.js';
import { Utf8Boundary } from './utf8-boundary.js';

export interface LiveSessionInit {
  owner: { user: string; roles: string[] };
  login: string;
  node: { id: string; hostname: string; addr: string };
  clusterName: string;
  proxyId: string;
  traceId: string;
  size: { w: number; h: number };
  /** '' for an interactive shell. */
  command: string;
  /** Epoch ms: max_session_ttl and the certificate end the session here. */
  expiresAt: number;
  /** client_idle_timeout in ms; 0 for none. */
  idleTimeoutMs: number;
  client: Client;
  channel: ClientChannel;
  /** The role option record_session for SSH; best_effort when not given. */
  recordSession?: RecordSessionMode;
  /**
   * Judges the owner's access again (the hub calls it when roles or users change, and every
   * second): a reason ends the session, undefined lets it go on.
   */
  recheck?: () => string | undefined;
}

export type { RecordingPolicy } from './session-recording.js';

export interface LiveSessionDeps {
  audit: AuditStore;
  mirror: ScreenMirror;
  now: () => number;
  /** Membership or size changed: publish the tracker. */
  onChange: (session: LiveSession) => void;
  onEnd: (session: LiveSession) => void;
  /** Absent: sessions are not recorded (tests of other behaviour). */
  recordings?: RecordingPolicy;
}

interface Member {
  party: Party;
  /** Output bytes sent and not yet acknowledged. */
  unacked: number;
  /** Output held while the joiner's first screen is being prepared. */
  pending?: Uint8Array[];
  lastActive: number;
}

/** A slow observer may hold the session paused this long before it is dropped. */
const stalledPartyLimitMs = 10_000;

/**
 * One live terminal session: the SSH channel to the node and every party watching or typing.
 * Output fans out to all parties; flow control pauses the channel while any party has too much
 * unacknowledged output, so a flood (`yes`) never fills memory and Ctrl-C is answered quickly.
 */
export class LiveSession {
  readonly id = randomUUID();
  readonly created: number;
  private readonly members = new Map<string, Member>();
  /** Everyone who joined, including those who left: the end event's and recording's participants. */
  private readonly everyone = new Set<string>();
  private readonly utf8 = new Utf8Boundary();
  private size: { w: number; h: number };
  private lastInput: number;
  private readonly gate: OutputGate;
  private ended = false;
  endReason = '';
  private recordingError = '';
  private readonly recording: SessionRecording | undefined;

  constructor(
    readonly init: LiveSessionInit,
    private readonly deps: LiveSessionDeps,
  ) {
    this.created = deps.now();
    this.lastInput = this.created;
    this.size = init.size;
    this.gate = new OutputGate(init.channel, deps.now);
    deps.mirror.open(this.id, init.size.w, init.size.h);
    const mode = init.recordSession ?? 'best_effort';
    if (deps.recordings && mode !== 'off') {
      this.recording = SessionRecording.start({
        sid: this.id,
        policy: deps.recordings,
        mode,
        size: init.size,
        start: this.created,
        title: `${init.login}@${init.node.hostname}${init.command ? `: ${init.command}` : ''}`,
        now: deps.now,
        mirror: deps.mirror,
        onFailure: (reason, endSession) => this.recordingFailed(reason, endSession),
        onDrain: () => this.maybeResume(),
      });
    }
    const { channel } = init;
    channel.on('data', (chunk: Buffer) => this.onOutput(chunk));
    channel.stderr.on('data', (chunk: Buffer) => this.onOutput(chunk));
    channel.on('exit', (code: number | null, signal?: string) => {
      this.exitStatus = { code: code ?? (signal ? -1 : 0), signal: signal ?? '' };
      this.exitReason = signal
        ? sessionEndReasons.signalled(signal)
        : sessionEndReasons.exited(code ?? 0);
    });
    channel.on('close', () => this.terminate(this.lostReason ?? this.exitReason));
    // ssh2 reports missed keepalives as an error just before it drops the connection.
    init.client.on('error', (error: Error & { level?: string }) => {
      if (error.level === 'client-timeout') this.lostReason = sessionEndReasons.serverUnresponsive;
    });
    init.client.on('close', () =>
      this.terminate(this.lostReason ?? 'connection to the server closed'),
    );
  }

  /** Set when the connection to the node was lost rather than closed. */
  private lostReason: string | undefined;

  private exitReason = 'session closed';
  private exitStatus: { code: number; signal: string } | undefined;

  /** How the program on the server ended, once it has (an SSH client relays it). */
  get exit(): { code: number; signal: string } | undefined {
    return this.exitStatus;
  }

  /** Settles once the recording is sealed (or has failed). */
  get recordingDone(): Promise<void> {
    return this.recording?.done ?? Promise.resolve();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** What this process holds of the output: unread from the node, and queued to every party. */
  heldOutputBytes(): number {
    const { channel } = this.init;
    const queued = [...this.members.values()].map((m) => m.party.queuedBytes?.() ?? 0);
    return (
      channel.readableLength + channel.stderr.readableLength + queued.reduce((a, b) => a + b, 0)
    );
  }

  parties(): Party[] {
    return [...this.members.values()].map((m) => m.party);
  }

  /** Adds a party. Joiners first get the current screen, then the live stream, in order. */
  async join(party: Party): Promise<void> {
    if (this.ended) return party.end(this.endReason);
    const first = this.members.size === 0;
    const member: Member = { party, unacked: 0, lastActive: this.deps.now() };
    this.everyone.add(party.user);
    if (!first) member.pending = [];
    this.members.set(party.id, member);
    if (!first) {
      const screen = await this.deps.mirror.snapshot(this.id);
      if (this.ended || !this.members.has(party.id)) return;
      party.event({ event: 'resize', size: `${this.size.w}:${this.size.h}` });
      const pending = member.pending ?? [];
      member.pending = undefined;
      if (screen) this.send(member, Buffer.from(screen, 'utf8'));
      for (const chunk of pending) this.send(member, chunk);
      this.broadcastEvent({ event: 'session.join', user: party.user, mode: party.mode });
      this.recording?.join(party.user, party.mode);
      emitAuditInBackground(this.deps.audit, 'T2001I', {
        ...this.auditFields(),
        user: party.user,
        mode: party.mode,
      });
    }
    this.publish();
  }

  leave(partyId: string, reason = 'left', kind: EndKind = 'ended'): void {
    const member = this.members.get(partyId);
    if (!member || this.ended) return;
    this.members.delete(partyId);
    member.party.end(reason, kind);
    this.broadcastEvent({ event: 'session.leave', user: member.party.user, reason });
    emitAuditInBackground(this.deps.audit, 'T2003I', {
      ...this.auditFields(),
      user: member.party.user,
      reason,
    });
    const typists = [...this.members.values()].filter((m) => m.party.mode === 'peer');
    if (typists.length === 0) return this.terminate(sessionEndReasons.allLeft);
    this.maybeResume();
    this.publish();
  }

  /** Keystrokes: text from the browser, bytes from an SSH client. */
  input(partyId: string, data: string | Uint8Array): void {
    const member = this.members.get(partyId);
    if (!member || this.ended) return;
    member.lastActive = this.deps.now();
    if (member.party.mode === 'moderator' && isTerminateKey(data)) {
      return this.terminate(`terminated by moderator ${member.party.user}`);
    }
    if (member.party.mode !== 'peer') return; // observers and moderators cannot type
    this.lastInput = member.lastActive;
    this.init.channel.write(data);
  }

  resize(partyId: string, w: number, h: number): void {
    const member = this.members.get(partyId);
    if (!member || member.party.mode !== 'peer' || this.ended) return;
    if (w === this.size.w && h === this.size.h) return;
    this.size = { w, h };
    this.init.channel.setWindow(h, w, 0, 0);
    this.deps.mirror.resize(this.id, w, h);
    this.recording?.resize(w, h);
    const size = `${w}:${h}`;
    for (const other of this.members.values()) {
      if (other !== member) other.party.event({ event: 'resize', size });
    }
    emitAuditInBackground(this.deps.audit, 'T2002I', {
      ...this.auditFields(),
      user: member.party.user,
      size,
    });
    this.publish();
  }

  /** The party's terminal processed `bytes` more output. */
  ack(partyId: string, bytes: number): void {
    const member = this.members.get(partyId);
    if (!member) return;
    member.unacked = Math.max(0, member.unacked - bytes);
    this.maybeResume();
  }

  /** Ends the session for everyone, once; `kind` says how parties tell their clients. */
  terminate(reason: string, kind: EndKind = 'ended'): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = reason;
    const rest = this.utf8.flush();
    if (rest.length) for (const m of this.members.values()) m.party.output(rest);
    if (rest.length) this.recording?.output(rest);
    const participants = [...new Set([this.init.owner.user, ...this.everyone])];
    // One instant for the recording's length and the end event's stop, so they agree.
    const stoppedAt = this.deps.now();
    void this.recording?.close(participants, stoppedAt);
    for (const member of this.members.values()) member.party.end(reason, kind);
    this.members.clear();
    this.init.channel.close();
    this.init.client.end();
    this.deps.mirror.close(this.id);
    if (this.init.command) this.auditExec();
    emitAuditInBackground(this.deps.audit, 'T2004I', {
      ...this.auditFields(),
      user: this.init.owner.user,
      reason,
      participants,
      interactive: this.init.command === '',
      session_start: new Date(this.created).toISOString(),
      session_stop: new Date(stoppedAt).toISOString(),
      session_recording: this.recording ? 'on' : 'off',
      ...(this.recordingError ? { session_recording_error: this.recordingError } : {}),
    });
    this.deps.onEnd(this);
  }

  /** A command session's outcome: T3002I when it exited 0, T3002E otherwise (reference codes). */
  private auditExec(): void {
    const status = this.exitStatus;
    const ok = status !== undefined && status.code === 0 && !status.signal;
    emitAuditInBackground(this.deps.audit, ok ? 'T3002I' : 'T3002E', {
      ...this.auditFields(),
      user: this.init.owner.user,
      command: this.init.command,
      exitCode: String(status?.code ?? ''),
      ...(ok ? {} : { exitError: status ? this.exitReason : this.endReason }),
    });
  }

  /** Called about once a second: time limits, and observers too slow to keep up. */
  checkLimits(now: number): void {
    if (this.ended) return;
    this.recording?.tick(now);
    this.maybeResume(); // the recording may have caught up
    if (now >= this.init.expiresAt) return this.terminate('session expired (max_session_ttl)');
    const idle = this.init.idleTimeoutMs;
    if (idle > 0 && now - this.lastInput >= idle) {
      return this.terminate(`idle for longer than client_idle_timeout`);
    }
    const pausedSince = this.gate.pausedSince;
    if (pausedSince !== undefined && now - pausedSince > stalledPartyLimitMs) {
      for (const [id, member] of this.members) {
        const stalled = member.unacked > terminalFlowControl.resumeBelow;
        if (stalled && member.party.user !== this.init.owner.user)
          this.leave(id, 'too slow to keep up');
      }
    }
  }

  toJson(participantModes: ParticipantMode[] = []): ActiveSessionJson {
    return toActiveSessionJson(this.toTracker(), participantModes);
  }

  toTracker(): SessionTracker {
    const iso = (ms: number) => new Date(ms).toISOString();
    const { init } = this;
    return {
      kind: 'ssh',
      id: this.id,
      login: init.login,
      created: iso(this.created),
      lastActive: iso(this.lastInput),
      serverId: init.node.id,
      serverHostname: init.node.hostname,
      serverAddr: init.node.addr,
      clusterName: init.clusterName,
      owner: init.owner.user,
      ownerRoles: init.owner.roles,
      terminal: this.size,
      parties: [...this.members.values()].map((m) => ({
        id: m.party.id,
        user: m.party.user,
        mode: m.party.mode,
        lastActive: iso(m.lastActive),
      })),
      moderated: false,
      command: init.command,
      proxyId: init.proxyId,
      expires: iso(init.expiresAt),
      traceId: init.traceId,
    };
  }

  auditFields() {
    const { init } = this;
    return {
      sid: this.id,
      login: init.login,
      server_id: init.node.id,
      server_hostname: init.node.hostname,
      server_addr: init.node.addr,
      proto: 'ssh',
      namespace: 'default',
      ...(init.traceId ? { trace_id: init.traceId } : {}),
    };
  }

  private onOutput(chunk: Buffer): void {
    const data = this.utf8.push(chunk);
    if (data.length === 0) return;
    this.deps.mirror.write(this.id, data);
    this.recording?.output(data);
    for (const member of this.members.values()) {
      if (member.pending) member.pending.push(Buffer.from(data));
      else this.send(member, data);
    }
    this.maybePause();
  }

  private recordingFailed(reason: string, endSession: boolean): void {
    if (this.ended || this.recordingError) return;
    this.recordingError = reason;
    if (endSession) {
      return this.terminate(`session recording failed: ${reason}; the session was ended`);
    }
    emitAuditInBackground(this.deps.audit, 'TPOS030E', {
      ...this.auditFields(),
      user: this.init.owner.user,
      reason,
    });
  }

  private send(member: Member, data: Uint8Array): void {
    member.unacked += data.length;
    member.party.output(data);
  }

  private backlog(): Backlog {
    return {
      viewers: [...this.members.values()].map((m) => m.unacked + pendingBytes(m)),
      recordingBehind: this.recording?.behind === true,
    };
  }

  private maybePause(): void {
    this.gate.pauseIfBehind(this.backlog());
  }

  private maybeResume(): void {
    this.gate.resumeIfCaughtUp(this.backlog());
  }

  private broadcastEvent(event: Record<string, unknown>): void {
    for (const member of this.members.values()) member.party.event(event);
  }

  private publish(): void {
    const json = this.toJson();
    for (const member of this.members.values()) member.party.sessionData(json);
    this.deps.onChange(this);
  }
}

const pendingBytes = (m: Member) => (m.pending ?? []).reduce((n, c) => n + c.length, 0);

/** A moderator ends a session with `t` (reference §2.3), typed in a browser or an SSH client. */
const isTerminateKey = (data: string | Uint8Array) =>
  typeof data === 'string' ? data === 't' : data.length === 1 && data[0] === 0x74;
