import {
  fileTransferRequestRefused,
  maxWaitingFileTransferRequests,
  type FileTransferRequestEvent,
  type FileTransferRequestFrame,
} from '@postern/contracts';
import { abortError } from './transferClient';

/**
 * File transfers in a moderated session (docs/file-transfer.md, "Moderated sessions"),
 * framework-free: the owner's transfers wait for their approval, and the other participants'
 * prompts follow the session's `a` events. One per terminal tab; its socket plugs in with
 * `attach` once the terminal starts, and feeds every file transfer event to `onEvent`.
 */

/** The query parameters an approved transfer carries. */
export interface ApprovalIds {
  moderatedSessionId: string;
  fileTransferRequestId: string;
}

/** What a transfer asks for, as the request frame names it. */
export type TransferAsk = Omit<FileTransferRequestFrame, 'event' | 'clientRequestId'>;

/** Someone else's request, as a prompt shows it. */
export interface TransferPrompt {
  requestId: string;
  requester: string;
  download: boolean;
  location: string;
  filename?: string;
  approvers: string[];
  /** This tab approved it already (others still have to). */
  approvedHere: boolean;
  /**
   * The viewer's own request, asked from another of their tabs in the session: the server lets
   * its owner withdraw it, never approve it.
   */
  own: boolean;
}

/** The socket's side: send a request, or a decision; each says whether it went out. */
export interface TransferFrames {
  request(frame: FileTransferRequestFrame): boolean;
  decide(requestId: string, approved: boolean): boolean;
}

interface Waiter {
  ask: TransferAsk;
  /** This tab's name for the request, which the server echoes in every event about it. */
  clientId: string;
  /** The server's, once its echo came. */
  requestId?: string;
  resolve: (ids: ApprovalIds) => void;
  reject: (error: Error) => void;
}

export const notConnectedMessage = 'the terminal is not connected: no moderator can approve';

/** A request sent just before the connection dropped, which the server never had. */
export const lostInDropMessage =
  'the request was lost when the connection dropped: nobody was asked; try again';

export class ModeratedTransfers {
  private frames: TransferFrames | undefined;
  private sid = '';
  /** The requests sent and not yet approved or denied (nor given up). */
  private readonly waiters: Waiter[] = [];
  /**
   * Asks beyond what the server lets wait at once (a multi-file upload, say): each is sent when
   * an earlier one is answered.
   */
  private readonly queued: Waiter[] = [];
  /**
   * The requests sent and not yet answered, oldest first, cancelled ones included. The server
   * answers each of the owner's requests, in order, with either its echo (the request event)
   * or an `e` refusal, which names no request: keeping a cancelled one here until its answer
   * comes keeps that refusal from being taken for a later request's.
   */
  private readonly unanswered: Waiter[] = [];
  /**
   * Random, so that two tabs of the same owner in one session (each hears the other's echoes)
   * never give the same id.
   */
  private readonly tab = Math.random().toString(36).slice(2, 10);
  private asked = 0;
  /** Resumed after a drop: the next session data ends the server's replay of requests. */
  private replaying = false;
  private promptList: TransferPrompt[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly approvedHere = new Set<string>();

  /**
   * `owner`: this tab started the session. Only a session's owner asks, so in its tab every
   * request is its own, and in a joined tab every request is someone else's, unless the owner
   * joined their own session from another tab: `viewer` (the signed-in user) tells those apart.
   */
  constructor(
    private readonly owner: boolean,
    private readonly viewer?: string,
  ) {}

  /**
   * The terminal's socket is up (or gone, with undefined), in the session `sid`; called with
   * every session data frame.
   */
  attach(frames: TransferFrames | undefined, sid = this.sid): void {
    this.frames = frames;
    this.sid = sid;
    if (this.replaying) this.replayed();
  }

  /**
   * The socket resumed after a drop. The server sends again what may have been missed (the
   * requests still waiting, and how the recent ones ended) and then the session's data, so the
   * others' prompts start over from that replay.
   */
  resumed(): void {
    this.replaying = true;
    if (this.owner) return;
    this.promptList = [];
    this.changed();
  }

  /**
   * Asks the session's moderators; resolves with the ids to make the transfer with once they
   * approve, rejects when one denies it or the ask is given up (`signal`).
   */
  approval(ask: TransferAsk, signal: AbortSignal): Promise<ApprovalIds> {
    if (!this.frames) return Promise.reject(new Error(notConnectedMessage));
    if (signal.aborted) return Promise.reject(abortError());
    return new Promise<ApprovalIds>((resolve, reject) => {
      const waiter: Waiter = { ask, clientId: `${this.tab}-${++this.asked}`, resolve, reject };
      signal.addEventListener(
        'abort',
        () => {
          this.drop(waiter);
          // Withdrawn, so the moderators' prompts go; one not echoed yet is withdrawn on its echo.
          if (waiter.requestId) this.frames?.decide(waiter.requestId, false);
          reject(abortError());
          this.sendQueued();
        },
        { once: true },
      );
      if (this.waitingAtServer() < maxWaitingFileTransferRequests) this.send(waiter);
      else this.queued.push(waiter);
    });
  }

  /** The session is over: what waits for an approval fails, and no prompt is left. */
  detach(reason: string): void {
    this.frames = undefined;
    this.unanswered.length = 0;
    for (const waiter of [...this.waiters.splice(0), ...this.queued.splice(0)]) {
      waiter.reject(new Error(reason));
    }
    if (this.promptList.length === 0) return;
    this.promptList = [];
    this.changed();
  }

  /** Approves or denies someone else's request. */
  decide(requestId: string, approved: boolean): void {
    if (!this.frames?.decide(requestId, approved)) return;
    if (approved) this.approvedHere.add(requestId);
  }

  /** The others' requests waiting for a decision, oldest first. */
  get prompts(): readonly TransferPrompt[] {
    return this.promptList;
  }

  /** Calls `listener` whenever the prompts change; returns the way to stop. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onEvent(event: FileTransferRequestEvent): void {
    if (this.owner) return this.ownEvent(event);
    this.othersEvent(event);
  }

  /**
   * An error the server sent on the socket. A refused request (too many waiting, say) is the
   * answer to the oldest one unanswered: its transfer fails with the reason instead of waiting
   * for an approval that cannot come.
   */
  onServerError(message: string): void {
    if (!this.owner || !message.startsWith(fileTransferRequestRefused)) return;
    const refused = this.unanswered.shift();
    if (refused && this.waiters.includes(refused)) {
      this.drop(refused);
      refused.reject(new Error(message));
    }
    this.sendQueued();
  }

  /**
   * The owner's own requests, matched by the id this tab gave each: the echo names the server's
   * id, and an approval or denial resolves the transfer. A replay after a resume may bring any
   * of them again, or one whose echo was lost in the drop.
   */
  private ownEvent(event: FileTransferRequestEvent): void {
    this.settle(event);
    this.sendQueued();
  }

  private settle(event: FileTransferRequestEvent): void {
    const sent = this.unanswered.findIndex((w) => w.clientId === event.clientRequestId);
    const echoed = sent >= 0 ? this.unanswered.splice(sent, 1)[0] : undefined;
    if (echoed) echoed.requestId = event.requestId;
    const waiter = this.waiters.find(
      (w) => w.requestId === event.requestId || w.clientId === event.clientRequestId,
    );
    if (!waiter) {
      // Cancelled before the server had named it: withdraw it now, or, when it was approved
      // meanwhile (a replay after a drop can bring that first), drop the approval.
      const live = event.event === 'file_transfer_request' || event.approved === true;
      if (echoed && live) this.frames?.decide(event.requestId, false);
      return;
    }
    if (event.event === 'file_transfer_request_deny') {
      this.drop(waiter);
      return waiter.reject(new Error(`denied by ${event.deniedBy ?? 'a moderator'}`));
    }
    if (event.approved) {
      this.drop(waiter);
      waiter.resolve({ moderatedSessionId: this.sid, fileTransferRequestId: event.requestId });
    }
  }

  /** The replay is over: a request still unanswered never reached the server. */
  private replayed(): void {
    this.replaying = false;
    for (const lost of this.unanswered.splice(0)) {
      if (!this.waiters.includes(lost)) continue; // cancelled meanwhile
      this.drop(lost);
      lost.reject(new Error(lostInDropMessage));
    }
    this.sendQueued();
  }

  /** Sends the request; one the socket could not send (resuming, say) fails at once. */
  private send(waiter: Waiter): void {
    const frame: FileTransferRequestFrame = {
      event: 'file_transfer_request',
      ...waiter.ask,
      clientRequestId: waiter.clientId,
    };
    if (!this.frames?.request(frame)) return waiter.reject(new Error(notConnectedMessage));
    this.waiters.push(waiter);
    this.unanswered.push(waiter);
  }

  /** What the server counts as waiting: the requests sent, and those withdrawn not yet echoed. */
  private waitingAtServer(): number {
    const withdrawnUnanswered = this.unanswered.filter((w) => !this.waiters.includes(w)).length;
    return this.waiters.length + withdrawnUnanswered;
  }

  private sendQueued(): void {
    while (this.waitingAtServer() < maxWaitingFileTransferRequests) {
      const next = this.queued.shift();
      if (!next) return;
      this.send(next);
    }
  }

  private othersEvent(event: FileTransferRequestEvent): void {
    const { requestId } = event;
    const rest = this.promptList.filter((p) => p.requestId !== requestId);
    const over = event.event === 'file_transfer_request_deny' || event.approved === true;
    if (over) {
      this.promptList = rest;
    } else {
      const prompt: TransferPrompt = {
        requestId,
        requester: event.requester,
        download: event.download,
        location: event.location,
        ...(event.filename !== undefined ? { filename: event.filename } : {}),
        approvers: event.approvers,
        approvedHere: this.approvedHere.has(requestId),
        own: this.viewer !== undefined && event.requester === this.viewer,
      };
      const known = this.promptList.some((p) => p.requestId === requestId);
      this.promptList = known
        ? this.promptList.map((p) => (p.requestId === requestId ? prompt : p))
        : [...this.promptList, prompt];
    }
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private drop(waiter: Waiter): void {
    for (const list of [this.waiters, this.queued]) {
      const index = list.indexOf(waiter);
      if (index >= 0) list.splice(index, 1);
    }
  }
}

/** "download /etc/hosts", "upload notes.txt to /tmp". */
export function describeAsk(ask: Pick<TransferPrompt, 'download' | 'location' | 'filename'>) {
  if (ask.download) return `download ${ask.location}`;
  return ask.filename ? `upload ${ask.filename} to ${ask.location}` : `upload to ${ask.location}`;
}
