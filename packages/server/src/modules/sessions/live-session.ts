import { randomUUID } from 'node:crypto';
import {
  fileTransferDecisionRefused,
  fileTransferRequestRefused,
  sessionEndReasons,
  terminalFlowControl,
  type ActiveSessionJson,
  type FileTransferDecisionFrame,
  type FileTransferRequestFrame,
  type ParticipantMode,
  type TerminalSize,
} from '@postern/contracts';
import { emitAuditInBackground, remoteAddr } from '../audit/emit.js';
import {
  isInteractive,
  sessionAuditFields,
  sessionTracker,
  type LiveSessionDeps,
  type LiveSessionInit,
} from './live-session-init.js';
import { FileTransferRequests } from './file-transfer-requests.js';
import type { EndKind, Party } from './party.js';
import {
  auditSessionEnd,
  closedReason,
  exitOutcome,
  isTerminateKey,
  limitReason,
  stalledPartyLimitMs,
  type ExitStatus,
} from './session-ending.js';
import { toActiveSessionJson } from './session-json.js';
import { SessionOutput } from './session-output.js';
import { SessionParties } from './session-parties.js';
import { startTerminalRecording, type SessionRecording } from './session-recording.js';
import { SessionModeration } from './session-moderation.js';
import type { SessionTracker } from './session-tracker.store.js';

export type { LiveSessionDeps, LiveSessionInit } from './live-session-init.js';
export type { RecordingPolicy } from './session-recording.js';

/**
 * One live session: the channel to the program (session-channel.ts; SSH today) and every party
 * watching or typing. Output takes session-output.ts to the parties; the ending rules (exit,
 * limits, the end's audit) are in session-ending.ts. A session with a terminal also keeps a
 * screen mirror (joiners' first screen, recording keyframes) and may be joined.
 */
export class LiveSession {
  readonly id = randomUUID();
  readonly created: number;
  endReason = '';
  private readonly members = new SessionParties();
  private readonly output: SessionOutput;
  private readonly recording: SessionRecording | undefined;
  /** The terminal's size; undefined for a session without a terminal. */
  private size: TerminalSize | undefined;
  private lastInput: number;
  private ended = false;
  private recordingError = '';
  private exited: { status: ExitStatus; reason: string } | undefined;
  /** A moderated session runs only while its moderators are there (session-moderation.ts). */
  private readonly moderation: SessionModeration;
  /** A moderated SSH session's file transfer requests; undefined where files move unasked. */
  private readonly fileRequests: FileTransferRequests | undefined;

  constructor(
    readonly init: LiveSessionInit,
    private readonly deps: LiveSessionDeps,
  ) {
    this.created = deps.now();
    this.lastInput = this.created;
    this.size = init.terminal && { ...init.terminal };
    this.output = new SessionOutput({
      channel: init.channel,
      parties: this.members,
      now: deps.now,
      terminal: init.terminal && {
        screen: (data) => deps.mirror.write(this.id, data),
        record: (data) => this.recording?.output(data),
      },
      recordingBehind: () => this.recording?.behind === true,
    });
    if (init.terminal) {
      deps.mirror.open(this.id, init.terminal.w, init.terminal.h);
      this.recording = startTerminalRecording(this.id, init, deps, {
        size: init.terminal,
        start: this.created,
        onFailure: (reason, endSession) => this.recordingFailed(reason, endSession),
        onDrain: () => this.output.maybeResume(),
      });
    }
    this.moderation = this.sessionModeration();
    this.fileRequests = this.moderatedFileRequests();
    init.channel.start({
      output: (chunk) => this.moderation.output(chunk),
      exit: (exit) => void (this.exited = exitOutcome(exit)),
      closed: (lostReason) => this.terminate(lostReason ?? this.exited?.reason ?? closedReason),
    });
  }

  /** How the program on the server ended, once it has (an SSH client relays it). */
  get exit(): ExitStatus | undefined {
    return this.exited?.status;
  }

  /** Settles once the recording is sealed (or has failed). */
  get recordingDone(): Promise<void> {
    return this.recording?.done ?? Promise.resolve();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** What this process holds of the output: unread from the channel, and queued to every party. */
  heldOutputBytes(): number {
    return this.init.channel.heldBytes() + this.members.queuedBytes();
  }

  parties(): Party[] {
    return this.members.list();
  }

  /**
   * Adds a party. Joiners first get the current screen, then the live stream, in order. A
   * session without a terminal has its owner's party only: a joiner is turned away.
   */
  async join(party: Party): Promise<void> {
    if (this.ended) return party.end(this.endReason);
    const first = this.members.size === 0;
    if (!first && !this.size) {
      return party.end(`a ${this.init.kind} session without a terminal cannot be joined`);
    }
    const member = this.members.add(party, this.deps.now(), !first);
    if (!first) this.fileRequests?.showPending(party);
    if (!first && this.size) {
      const screen = await this.deps.mirror.snapshot(this.id);
      if (this.ended || this.members.get(party.id) !== member) return;
      party.event({ event: 'resize', size: `${this.size.w}:${this.size.h}` });
      this.members.release(member, screen);
      this.members.event({ event: 'session.join', user: party.user, mode: party.mode });
      this.recording?.join(party.user, party.mode);
      emitAuditInBackground(this.deps.audit, 'T2001I', {
        ...this.auditFields(),
        user: party.user,
        mode: party.mode,
      });
    }
    this.moderate();
    if (this.ended) return;
    this.publish();
  }

  leave(partyId: string, reason = 'left', kind: EndKind = 'ended'): void {
    if (this.ended) return;
    const member = this.members.remove(partyId);
    if (!member) return;
    member.party.end(reason, kind);
    this.members.event({ event: 'session.leave', user: member.party.user, reason });
    emitAuditInBackground(this.deps.audit, 'T2003I', {
      ...this.auditFields(),
      user: member.party.user,
      reason,
    });
    if (!this.members.hasPeer()) return this.terminate(sessionEndReasons.allLeft);
    this.fileRequests?.partyLeft(member.party.user);
    this.moderate();
    if (this.ended) return;
    this.output.maybeResume();
    this.publish();
  }

  /**
   * The party's connection dropped and its client may resume it within `graceMs`
   * (terminal/session-resumes.ts): it stays a party meanwhile, and its unread output holds the
   * program back as a slow reader's would. The others and Active Sessions see it as lost.
   */
  connectionLost(partyId: string, graceMs: number): void {
    const member = this.members.get(partyId);
    if (!member || this.ended) return;
    member.lostAt = this.deps.now();
    this.members.event({ event: 'session.connection_lost', user: member.party.user }, member);
    emitAuditInBackground(this.deps.audit, 'TPOS051W', {
      ...this.auditFields(),
      user: member.party.user,
      grace: `for ${Math.round(graceMs / 1000)}s for a resume`,
    });
    this.publish();
  }

  /** The party's client resumed over a new connection: it is told the session as it is now. */
  resumed(partyId: string, from: string | undefined): void {
    const member = this.members.get(partyId);
    if (!member || this.ended) return;
    member.lastActive = this.deps.now();
    member.lostAt = undefined;
    this.members.event({ event: 'session.resumed', user: member.party.user }, member);
    this.fileRequests?.replayTo(member.party);
    emitAuditInBackground(this.deps.audit, 'TPOS052I', {
      ...this.auditFields(),
      user: member.party.user,
      ...remoteAddr(from),
    });
    this.output.maybeResume();
    this.publish();
  }

  /** Keystrokes: text from the browser, bytes from an SSH client. */
  input(partyId: string, data: string | Uint8Array): void {
    const member = this.members.get(partyId);
    if (!member || this.ended) return;
    member.lastActive = this.deps.now();
    if (member.party.mode === 'moderator' && isTerminateKey(data)) {
      return this.terminate(sessionEndReasons.moderatorEnded(member.party.user));
    }
    if (member.party.mode !== 'peer') return; // observers and moderators cannot type
    if (!this.moderation.running) return; // nobody drives it until it may run
    this.lastInput = member.lastActive;
    this.init.channel.write(data);
  }

  resize(partyId: string, w: number, h: number): void {
    const member = this.members.get(partyId);
    if (!member || member.party.mode !== 'peer' || this.ended || !this.size) return;
    if (w === this.size.w && h === this.size.h) return;
    this.size = { w, h };
    this.init.channel.resize(w, h);
    this.deps.mirror.resize(this.id, w, h);
    this.recording?.resize(w, h);
    const size = `${w}:${h}`;
    this.members.event({ event: 'resize', size }, member);
    emitAuditInBackground(this.deps.audit, 'T2002I', {
      ...this.auditFields(),
      user: member.party.user,
      size,
    });
    this.publish();
  }

  /** The owner asks to move a file in a moderated session (file-transfer-requests.ts). */
  requestFileTransfer(partyId: string, frame: FileTransferRequestFrame): void {
    const member = this.members.get(partyId);
    if (!member || this.ended) return;
    const refused = this.fileRequests
      ? this.fileRequests.request(member.party, frame)
      : 'this session is not moderated: move files without asking';
    if (refused) member.party.error?.(`${fileTransferRequestRefused}${refused}`);
  }

  /** A participant approves or denies a file transfer request. */
  decideFileTransfer(partyId: string, decision: FileTransferDecisionFrame): void {
    const member = this.members.get(partyId);
    if (!member || this.ended) return;
    const refused = this.fileRequests
      ? this.fileRequests.decide(member.party, decision)
      : 'this session is not moderated';
    if (refused) member.party.error?.(`${fileTransferDecisionRefused}${refused}`);
  }

  /** The party's terminal processed `bytes` more output. */
  ack(partyId: string, bytes: number): void {
    if (this.members.ack(partyId, bytes)) this.output.maybeResume();
  }

  /** Ends the session for everyone, once; `kind` says how parties tell their clients. */
  terminate(reason: string, kind: EndKind = 'ended'): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = reason;
    this.output.flush();
    const participants = this.members.participants(this.init.owner.user);
    // One instant for the recording's length and the end event's stop, so they agree.
    const stoppedAt = this.deps.now();
    void this.recording?.close(participants, stoppedAt);
    this.members.endAll(reason, kind);
    this.fileRequests?.close();
    this.init.channel.close();
    if (this.size) this.deps.mirror.close(this.id);
    auditSessionEnd(this.deps.audit, {
      fields: this.auditFields(),
      owner: this.init.owner.user,
      command: this.init.command,
      interactive: isInteractive(this.init),
      reason,
      participants,
      created: this.created,
      stoppedAt,
      recorded: this.recording !== undefined,
      recordingError: this.recordingError,
      exit: this.exited,
    });
    this.deps.onEnd(this);
  }

  /** Called about once a second: time limits, and observers too slow to keep up. */
  checkLimits(now: number): void {
    if (this.ended) return;
    this.recording?.tick(now);
    this.output.maybeResume(); // the recording may have caught up
    const limit = limitReason(now, this.init, this.lastInput);
    if (limit) return this.terminate(limit);
    const pausedSince = this.output.pausedSince;
    if (pausedSince !== undefined && now - pausedSince > stalledPartyLimitMs) {
      const owner = this.init.owner.user;
      for (const id of this.members.behindExceptOwner(owner, terminalFlowControl.resumeBelow)) {
        this.leave(id, 'too slow to keep up');
      }
    }
  }

  toJson(participantModes: ParticipantMode[] = []): ActiveSessionJson {
    return toActiveSessionJson(this.toTracker(), participantModes);
  }

  toTracker(): SessionTracker {
    return sessionTracker(this.init, {
      moderated: this.moderation.required,
      id: this.id,
      created: this.created,
      lastInput: this.lastInput,
      size: this.size,
      parties: (iso) => this.members.tracked(iso),
    });
  }

  auditFields() {
    return sessionAuditFields(this.id, this.init);
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

  /** Works out again whether a moderated session may run, after a join or a leave. */
  private moderate(): void {
    if (!this.ended) this.moderation.judge();
  }

  private sessionModeration(): SessionModeration {
    return new SessionModeration({
      moderation: this.init.moderation,
      owner: this.init.owner.user,
      participants: () => this.judgedParties(),
      channel: this.init.channel,
      push: (chunk) => this.output.push(chunk),
      outputPaused: () => this.output.pausedSince !== undefined,
      notice: (text) => this.notice(text),
      audit: (code, fields) =>
        emitAuditInBackground(this.deps.audit, code, { ...this.auditFields(), ...fields }),
      terminate: (reason) => this.terminate(reason),
    });
  }

  /** The parties, as a moderation policy judges them (with their traits). */
  private judgedParties() {
    const { traitsOf } = this.deps;
    return this.members.list().map((p) => (traitsOf ? { ...p, traits: traitsOf(p.user) } : p));
  }

  /**
   * Files move in an SSH session with a terminal only where the owner may not move them
   * unwatched: there they are asked for, and approved by the session's moderators.
   */
  private moderatedFileRequests(): FileTransferRequests | undefined {
    const { moderation, kind, terminal } = this.init;
    const approvals = this.deps.approvedTransfers;
    if (!moderation?.required || kind !== 'ssh' || !terminal || !approvals) return undefined;
    return new FileTransferRequests({
      sessionId: this.id,
      owner: this.init.owner.user,
      node: this.init.node,
      login: this.init.login,
      moderation,
      approvals,
      participants: () => this.judgedParties(),
      broadcast: (event) => this.members.event({ ...event }),
      notice: (text) => this.notice(text),
      audit: (code, fields) =>
        emitAuditInBackground(this.deps.audit, code, { ...this.auditFields(), ...fields }),
      onError: (error) => this.deps.onError?.(error),
    });
  }

  /** A line from Postern in every party's terminal; not recorded, not part of the screen. */
  private notice(text: string): void {
    this.members.deliverLast(Buffer.from(`\r\nPostern > ${text}\r\n`, 'utf8'));
  }

  private publish(): void {
    this.members.sessionData(this.toJson());
    this.deps.onChange(this);
  }
}
