import { sessionEndReasons } from '@postern/contracts';
import type { AuditCode } from '@postern/contracts';
import type { Moderation, ModerationState, Participant } from './moderation.js';

/** What a live session lends its moderation. */
export interface SessionModerationContext {
  /** The session's rules; undefined (or not required) for a session that always runs. */
  moderation: Moderation | undefined;
  owner: string;
  /** The parties now, as the policy judges them (traits included). */
  participants(): Participant[];
  channel: { pause(): void; resume(): void };
  /** Output on to the parties (and the recording). */
  push(chunk: Uint8Array): void;
  /** Whether a party's backlog holds the channel already: then it is not resumed here. */
  outputPaused(): boolean;
  /** A line from Postern in every party's terminal. */
  notice(text: string): void;
  audit(code: AuditCode, fields: Record<string, unknown>): void;
  terminate(reason: string): void;
}

/**
 * Whether a moderated session may run (moderation.ts has the rules): it waits for its
 * moderators, runs once they are there, and pauses or ends (on_leave) when they go. While it
 * does not run, what the program sends is held and the channel stops reading, so not one byte
 * reaches anyone, the recording included, before the policy is met. Every party is told each
 * change in its terminal, as text: a stock ssh client has no other place for it.
 */
export class SessionModeration {
  private current: ModerationState;
  /** Output that arrived while the session waited or was paused: released when it runs. */
  private held: Buffer[] = [];

  constructor(private readonly ctx: SessionModerationContext) {
    this.current = ctx.moderation?.required ? 'waiting' : 'running';
  }

  get required(): boolean {
    return !!this.ctx.moderation?.required;
  }

  get running(): boolean {
    return this.current === 'running';
  }

  /** The program's output: on to the parties while the session runs, else held. */
  output(chunk: Uint8Array): void {
    if (this.current === 'running') return this.ctx.push(chunk);
    this.held.push(Buffer.from(chunk));
    this.ctx.channel.pause();
  }

  /** Works the state out again, after a join or a leave. */
  judge(): void {
    const { moderation } = this.ctx;
    if (!moderation?.required) return;
    const participants = this.ctx.participants();
    const met = moderation.fulfilledBy(participants);
    const present = moderation.counted(participants).map((p) => `${p.user} (${p.mode})`);
    const joined = present.length > 0 ? present.join(', ') : 'nobody yet';
    if (met && this.current !== 'running') {
      const resumed = this.current === 'paused';
      this.current = 'running';
      this.ctx.notice(`${joined} joined: the session ${resumed ? 'resumes' : 'starts'}.`);
      this.release();
      this.audit(resumed ? 'resumed' : 'started', present);
    } else if (!met && this.current === 'running') {
      if (moderation.onLeave() === 'terminate') {
        return this.ctx.terminate(sessionEndReasons.moderatorLeft);
      }
      this.current = 'paused';
      this.ctx.channel.pause();
      this.ctx.notice(`paused until ${moderation.describe()} rejoin. Present: ${joined}.`);
      this.audit('paused', present);
    } else if (!met) {
      this.ctx.notice(`this session needs ${moderation.describe()}. Joined: ${joined}. Waiting…`);
    }
  }

  /** The output flows again: what was held first, then the channel. */
  private release(): void {
    const held = this.held;
    this.held = [];
    for (const chunk of held) this.ctx.push(chunk);
    if (!this.ctx.outputPaused()) this.ctx.channel.resume();
  }

  private audit(state: 'started' | 'resumed' | 'paused', moderators: string[]): void {
    this.ctx.audit('TPOS050I', { user: this.ctx.owner, state, moderators });
  }
}
