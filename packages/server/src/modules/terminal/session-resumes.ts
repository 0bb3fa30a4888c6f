import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ResumeKey } from '@postern/contracts';
import type { LiveSession } from '../sessions/live-session.js';
import type { SessionTracker } from '../sessions/session-tracker.store.js';
import type { WebSocketParty } from './websocket-party.js';

/** What a resume takes over: the owner's party in its session. */
export interface Resumable {
  session: LiveSession;
  party: WebSocketParty;
  user: string;
}

/** Why a resume was refused; `holder`: another proxy holds the session (peer-resume.ts). */
export interface ResumeRefusal {
  refused: string;
  holder?: SessionTracker;
}

interface Held extends Resumable {
  keyHash: Buffer;
  /** Set while the connection is lost: the session ends when it fires. */
  timer?: NodeJS.Timeout;
}

/**
 * The sessions of this proxy whose owners may resume them over a new socket
 * after the connection dropped (docs/protocol.md §6.1). Each holds a key known only to the
 * owner's client (a fresh one after every resume; only its hash is kept). A lost connection
 * keeps the session for `graceMs`; a resume in that time, by the same user with the key,
 * moves the party to the new socket, and nobody else notices more than a pause.
 */
export class SessionResumes {
  private readonly held = new Map<string, Held>();

  constructor(
    readonly graceMs: number,
    /** The tracker of `user`'s session `sid` when another proxy holds it (behind a balancer). */
    private readonly heldElsewhere: (
      sid: string,
      user: string,
    ) => SessionTracker | undefined = () => undefined,
  ) {}

  /**
   * Makes the owner's party resumable and returns the key to give its client (`k`); nothing
   * when resuming is turned off (a grace of 0), so the party keeps no output either.
   */
  offer(resumable: Resumable): ResumeKey | undefined {
    if (this.graceMs <= 0) return undefined;
    const key = randomBytes(32).toString('base64url');
    const sid = resumable.session.id;
    clearTimeout(this.held.get(sid)?.timer);
    resumable.party.keepForResume();
    this.held.set(sid, { ...resumable, keyHash: hashOf(key) });
    return { sid, key, grace_ms: this.graceMs };
  }

  /**
   * The owner's socket dropped without a close: the session waits `graceMs` for a resume, and
   * the owner then leaves it as if they had closed the socket. False when `party` is not a
   * resumable one (a joiner of the session, say).
   */
  lost(sid: string, party: WebSocketParty, reason: string): boolean {
    const held = this.held.get(sid);
    if (held?.party !== party || this.graceMs <= 0 || held.session.isEnded) return false;
    clearTimeout(held.timer);
    held.timer = setTimeout(() => {
      this.held.delete(sid);
      held.session.leave(held.party.id, `${reason}, and it was not resumed in time`);
    }, this.graceMs);
    held.timer.unref();
    held.session.connectionLost(held.party.id, this.graceMs);
    return true;
  }

  /**
   * Hands the session to a resume by `user` with `key`, or says why not. The session stays
   * held (under its timer, if lost) until `offer` gives it a new key.
   */
  take(sid: string, user: string, key: string): Held | ResumeRefusal {
    const held = this.held.get(sid);
    const holder = held ? undefined : this.heldElsewhere(sid, user);
    if (holder) return { refused: 'another proxy of the cluster holds this session', holder };
    // One answer for a wrong key, another user and an unknown session: nothing to probe.
    if (!held || held.user !== user || !timingSafeEqual(held.keyHash, hashOf(key))) {
      return { refused: 'no session to resume with this key' };
    }
    if (held.session.isEnded) {
      this.forget(sid);
      return { refused: `the session has ended: ${held.session.endReason}` };
    }
    return held;
  }

  /**
   * The owner's client gave the session up while resuming it (its tab was closed): with the
   * key, the party leaves now rather than when the grace runs out. Refused as `take` refuses.
   */
  abandon(sid: string, user: string, key: string): ResumeRefusal | undefined {
    const held = this.take(sid, user, key);
    if ('refused' in held) return held;
    this.forget(sid);
    held.session.leave(held.party.id, 'its tab was closed while the connection was lost');
    return undefined;
  }

  /** The owner left (or the session ended): its session is no longer resumable. */
  forget(sid: string, party?: WebSocketParty): void {
    const held = this.held.get(sid);
    if (!held || (party && held.party !== party)) return;
    clearTimeout(held.timer);
    this.held.delete(sid);
  }

  /** How many sessions are held now (for tests and metrics). */
  get size(): number {
    return this.held.size;
  }
}

const hashOf = (key: string) => createHash('sha256').update(key).digest();
