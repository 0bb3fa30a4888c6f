import { randomUUID } from 'node:crypto';
import type {
  FileTransferDecisionFrame,
  FileTransferRequestEvent,
  FileTransferRequestFrame,
} from '@postern/contracts';
import { maxWaitingFileTransferRequests, type AuditCode } from '@postern/contracts';
import type { ApprovedTransfer, ApprovedTransfers } from './approved-transfers.js';
import type { Moderation, Participant } from './moderation.js';
import type { Party } from './party.js';

/** What a moderated session lends its file transfer requests. */
export interface FileTransferRequestsContext {
  sessionId: string;
  owner: string;
  node: { id: string; hostname: string };
  login: string;
  moderation: Moderation;
  approvals: Pick<ApprovedTransfers, 'approve' | 'take' | 'dropSession'>;
  /** The parties now, as the moderation policy judges them (traits included). */
  participants(): Participant[];
  /** An `a` event to every party. */
  broadcast(event: FileTransferRequestEvent): void;
  /** A line in every party's terminal (a stock ssh client sees only these). */
  notice(text: string): void;
  audit(code: AuditCode, fields: Record<string, unknown>): void;
  onError(error: unknown): void;
}

interface Pending {
  id: string;
  frame: FileTransferRequestFrame;
  approvers: Set<string>;
}

/** More waiting at once is a flood, not a workflow (the console queues the rest). */
const maxPending = maxWaitingFileTransferRequests;
/** Answered requests whose last event a resuming party is sent (it may have missed it). */
const answeredKept = 32;

/**
 * File transfers in a moderated session (the reference's moderated file transfers): the
 * session's owner may not move files unwatched, so they ask here; every participant hears of it,
 * and it is approved once the approvers (participants other than the owner, in moderator or peer
 * mode) meet the session's own moderation policy, or dropped when any of them denies it, or when
 * the owner withdraws it. An approval is written to ApprovedTransfers for the one transfer it
 * allows; the file transfer route takes it. Nothing outlives the session.
 *
 * Events are not kept for a resume as output is, so a party that joins late is sent the
 * requests still waiting (`showPending`), and one that resumes a dropped connection the last
 * event of every request it may have missed (`replayTo`).
 */
export class FileTransferRequests {
  private readonly pending = new Map<string, Pending>();
  /** The last event of recently answered requests, oldest first. */
  private readonly answered = new Map<string, FileTransferRequestEvent>();
  private closed = false;

  constructor(private readonly ctx: FileTransferRequestsContext) {}

  /** The owner asks; anyone else is refused (the reason is returned for the party). */
  request(party: Party, frame: FileTransferRequestFrame): string | undefined {
    if (!this.isOwner(party)) return 'only the session owner asks for file transfers';
    if (this.pending.size >= maxPending) {
      return `at most ${maxPending} file transfer requests may wait at once`;
    }
    const pending: Pending = { id: randomUUID(), frame, approvers: new Set() };
    this.pending.set(pending.id, pending);
    this.ctx.broadcast(this.eventOf(pending, 'file_transfer_request'));
    this.ctx.notice(
      `${this.ctx.owner} asks to ${describe(frame)}; approve or deny it in the console.`,
    );
    this.audit('TPOS053I', pending, {});
    return undefined;
  }

  /**
   * A participant approves or denies; observers cannot, and the owner may only withdraw its
   * own request (a denial from the owner).
   */
  decide(party: Party, decision: FileTransferDecisionFrame): string | undefined {
    const pending = this.pending.get(decision.requestId);
    // An owner who cancels just as it is decided needs no error for it; an approval it no
    // longer wants (its transfer was cancelled) is dropped, so nothing can use it.
    if (!pending) {
      const late = this.isOwner(party) && !decision.approved;
      if (late) this.dropApproval(decision.requestId);
      return late ? undefined : 'no such file transfer request is waiting';
    }
    if (this.isOwner(party) && !decision.approved) return this.withdraw(pending);
    if (party.user === this.ctx.owner || party.mode === 'observer') {
      return 'only the session’s moderators and other peers decide on file transfers';
    }
    if (!decision.approved) return this.deny(pending, party.user);
    pending.approvers.add(party.user);
    const approved = this.met(pending);
    if (approved) this.pending.delete(pending.id);
    this.audit('TPOS054I', pending, { user: party.user, approved });
    if (!approved) {
      this.ctx.broadcast({ ...this.eventOf(pending, 'file_transfer_request_approve'), approved });
      return undefined;
    }
    // The owner hears of it only once the approval is stored: its transfer then finds it.
    this.ctx.approvals.approve(this.approvalOf(pending)).then(
      () => {
        if (this.closed) return;
        this.answer({ ...this.eventOf(pending, 'file_transfer_request_approve'), approved });
        this.ctx.notice(`${this.ctx.owner}’s request to ${describe(pending.frame)} was approved.`);
      },
      (error: unknown) => {
        this.ctx.onError(error);
        if (this.closed) return;
        this.answer({
          ...this.eventOf(pending, 'file_transfer_request_deny'),
          deniedBy: 'Postern (the approval could not be stored)',
        });
      },
    );
    return undefined;
  }

  /** A participant joined after requests were sent: the ones still waiting, as prompts. */
  showPending(party: Party): void {
    if (this.isOwner(party)) return;
    for (const pending of this.pending.values()) {
      party.event(this.eventOf(pending, 'file_transfer_request'));
    }
  }

  /**
   * A party resumed a dropped connection: the requests still waiting, then how each recent one
   * ended. Events it saw already change nothing in its console (they are matched by id).
   */
  replayTo(party: Party): void {
    // A waiting request's event carries its approvers so far.
    for (const pending of this.pending.values()) {
      party.event(this.eventOf(pending, 'file_transfer_request'));
    }
    for (const event of this.answered.values()) party.event(event);
  }

  /**
   * A party left. An approval counts only while its giver is in the session, so the requests it
   * approved are announced again (`file_transfer_request`) with the approvers still present: the
   * prompts then list who still counts, and the missing approvals can be given again.
   */
  partyLeft(user: string): void {
    if (this.present().has(user)) return; // another connection of the same user stays
    for (const pending of this.pending.values()) {
      if (pending.approvers.has(user)) {
        this.ctx.broadcast(this.eventOf(pending, 'file_transfer_request'));
      }
    }
  }

  /** The session ended: nothing waits any more, and approvals not yet used go. */
  close(): void {
    this.closed = true;
    this.pending.clear();
    this.answered.clear();
    this.ctx.approvals.dropSession(this.ctx.sessionId).catch(this.ctx.onError);
  }

  private deny(pending: Pending, user: string): undefined {
    this.pending.delete(pending.id);
    this.answer({ ...this.eventOf(pending, 'file_transfer_request_deny'), deniedBy: user });
    this.ctx.notice(`${user} denied ${this.ctx.owner}’s request to ${describe(pending.frame)}.`);
    this.audit('TPOS055I', pending, { user });
    return undefined;
  }

  /** The owner gave the transfer up: the prompts go, and nobody can approve it any more. */
  private withdraw(pending: Pending): undefined {
    this.pending.delete(pending.id);
    const { owner } = this.ctx;
    this.answer({
      ...this.eventOf(pending, 'file_transfer_request_deny'),
      deniedBy: owner,
      withdrawn: true,
    });
    this.ctx.notice(`${owner} withdrew the request to ${describe(pending.frame)}.`);
    this.audit('TPOS056I', pending, {});
    return undefined;
  }

  /** The stored approval of a request approved and not used yet, taken so nobody can use it. */
  private dropApproval(requestId: string): void {
    if (this.answered.get(requestId)?.approved !== true) return;
    this.ctx.approvals
      .take(this.ctx.sessionId, requestId, () => true)
      .catch((error: unknown) => this.ctx.onError(error));
  }

  /** A request's last event: to everyone now, and kept for a party that resumes. */
  private answer(event: FileTransferRequestEvent): void {
    this.answered.set(event.requestId, event);
    if (this.answered.size > answeredKept) {
      const oldest = this.answered.keys().next().value;
      if (oldest !== undefined) this.answered.delete(oldest);
    }
    this.ctx.broadcast(event);
  }

  /** The party the session's owner drives it from (it asks, and may withdraw). */
  private isOwner(party: Party): boolean {
    return party.user === this.ctx.owner && party.mode === 'peer';
  }

  /** The approvers still in the session meet its moderation policy. */
  private met(pending: Pending): boolean {
    const approvers = this.ctx
      .participants()
      .filter((p) => pending.approvers.has(p.user) && p.mode !== 'observer');
    return this.ctx.moderation.fulfilledBy(approvers);
  }

  /** The users in the session who may decide (an approval counts only while its giver is here). */
  private present(): Set<string> {
    const deciders = this.ctx.participants().filter((p) => p.mode !== 'observer');
    return new Set(deciders.map((p) => p.user));
  }

  private eventOf(
    pending: Pending,
    event: FileTransferRequestEvent['event'],
  ): FileTransferRequestEvent {
    const { download, location, filename, clientRequestId } = pending.frame;
    const present = this.present();
    return {
      event,
      requestId: pending.id,
      requester: this.ctx.owner,
      location,
      ...(filename !== undefined ? { filename } : {}),
      download,
      // Those whose approval still counts; the audit keeps everyone who gave one.
      approvers: [...pending.approvers].filter((user) => present.has(user)),
      ...(clientRequestId !== undefined ? { clientRequestId } : {}),
    };
  }

  private approvalOf(pending: Pending): ApprovedTransfer {
    const { download, location, filename } = pending.frame;
    return {
      sessionId: this.ctx.sessionId,
      requestId: pending.id,
      user: this.ctx.owner,
      nodeId: this.ctx.node.id,
      login: this.ctx.login,
      download,
      location,
      ...(filename !== undefined ? { filename } : {}),
    };
  }

  private audit(code: AuditCode, pending: Pending, fields: Record<string, unknown>): void {
    const { download, location, filename } = pending.frame;
    this.ctx.audit(code, {
      user: this.ctx.owner,
      requester: this.ctx.owner,
      request_id: pending.id,
      action: download ? 'download' : 'upload',
      location,
      ...(filename !== undefined ? { filename } : {}),
      approvers: [...pending.approvers],
      ...fields,
    });
  }
}

/** "download /etc/hosts", "upload notes.txt to /tmp". */
function describe(frame: FileTransferRequestFrame): string {
  if (frame.download) return `download ${frame.location}`;
  return frame.filename
    ? `upload ${frame.filename} to ${frame.location}`
    : `upload a file to ${frame.location}`;
}
