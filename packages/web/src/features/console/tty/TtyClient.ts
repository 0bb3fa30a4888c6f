import {
  encodeEnvelope,
  terminalMessageTypes as T,
  type FileTransferDecisionFrame,
  type FileTransferRequestFrame,
  type SessionMfaResponse,
} from '@postern/contracts';
import { Emitter } from './emitter';
import { parseSize, partyNotice, sizeText, toBytes, validSize } from './frameData';
import { SessionResume } from './resume';
import { readServerFrame, readSessionAnswer, type ServerFrame } from './serverFrames';
import { abnormalClosure } from './ttyTypes';

import type {
  TerminalSize,
  TtyClientOptions,
  TtyEndedBy,
  TtyEvents,
  TtyState,
  WebSocketConstructorLike,
  WebSocketLike,
} from './ttyTypes';

export { parseSize, sizeText } from './frameData';
export * from './ttyTypes';

/**
 * The terminal socket's client side (docs/protocol.md): the in-band authentication, the envelope
 * framing, UTF-8 decoding of output, and the output acknowledgements that let the proxy apply
 * backpressure. Framework-free and DOM-free: the console drives it from React and xterm, the
 * benchmark's headless client from Node 20 with a WebSocket implementation passed in.
 */

/** Acks go out at least this often (bytes processed by the terminal). */
export const defaultAckEvery = 256 * 1024;
export const normalClosure = 1000;

const encoder = new TextEncoder();

export class TtyClient extends Emitter<TtyEvents> {
  private socket: WebSocketLike | undefined;
  private stateValue: TtyState = 'idle';
  private readonly decoder = new TextDecoder('utf-8');
  private readonly ackEvery: number;
  private lastSize: string | undefined;
  private pendingSize: TerminalSize | undefined;
  private endReason: string | undefined;
  private endedBy: TtyEndedBy | undefined;
  private closeRequested = false;
  private received = 0;
  private acknowledged = 0;
  private processedSinceAck = 0;
  /** What resuming the session after a dropped connection needs (the server's key, time). */
  private readonly resume: SessionResume;

  constructor(private readonly options: TtyClientOptions) {
    super();
    this.ackEvery = options.ackEvery ?? defaultAckEvery;
    this.resume = new SessionResume(options.timers);
    if (options.initialSize) this.lastSize = sizeText(options.initialSize);
  }

  get state(): TtyState {
    return this.stateValue;
  }

  get readOnly(): boolean {
    return this.options.readOnly === true;
  }

  /** Output bytes received, and those acknowledged to the server so far. */
  get counters(): { received: number; acknowledged: number; pendingAck: number } {
    return {
      received: this.received,
      acknowledged: this.acknowledged,
      pendingAck: this.processedSinceAck,
    };
  }

  /** Opens the socket. Nothing is sent before it opens; the first frame is the token. */
  connect(): void {
    if (this.stateValue !== 'idle') throw new Error('the terminal client connects only once');
    const socket = this.openSocket();
    socket.onopen = () => {
      if (this.stateValue !== 'connecting') return;
      this.setState('authenticating');
      socket.send(JSON.stringify({ token: this.options.token }));
    };
    this.setState('connecting');
  }

  /**
   * Keystrokes or pasted text (`r`). Dropped for observers and before the session is open; a
   * moderator's `t` alone goes through: it ends the session (the reference's key).
   */
  send(data: string): void {
    if (data === '') return;
    if (this.readOnly && !(this.options.moderator && data === 't')) return;
    if (this.stateValue === 'reconnecting') return this.resume.hold(data);
    this.sendInput(data);
  }

  /** The local terminal's size changed (`w`). Observers follow the session's size instead. */
  resize(size: TerminalSize): void {
    if (this.readOnly || !validSize(size)) return;
    if (this.stateValue !== 'open') {
      this.pendingSize = size;
      return;
    }
    this.sendResize(size);
  }

  /** Answers the server's per-session MFA challenge (`n`): a key's assertion or a code. */
  answerMfa(response: SessionMfaResponse): void {
    this.sendFrame(T.mfaChallenge, JSON.stringify(response));
  }

  /**
   * A moderated session's owner asks to move a file (`f`, docs/protocol.md §4.7). False when it
   * could not be sent (not open, or resuming): no answer will come, so the caller must not wait.
   */
  requestFileTransfer(frame: FileTransferRequestFrame): boolean {
    return this.sendFrame(T.fileTransferRequest, JSON.stringify(frame));
  }

  /** Another participant approves or denies a file transfer request (`t`); false if not sent. */
  decideFileTransfer(requestId: string, approved: boolean): boolean {
    const decision: FileTransferDecisionFrame = {
      event: 'file_transfer_decision',
      requestId,
      approved,
    };
    return this.sendFrame(T.fileTransferDecision, JSON.stringify(decision));
  }

  /** A joiner says its terminal is ready for the session's replay and stream (`j`). */
  readyToJoin(): void {
    this.sendFrame(T.readyToJoin, '');
  }

  /**
   * The terminal has processed `bytes` of the output it was given (xterm's write callback).
   * Acks go out once `ackEvery` bytes are processed; call `flushAck` at the end of a batch.
   */
  processed(bytes: number): void {
    const unprocessed = this.received - this.acknowledged - this.processedSinceAck;
    this.processedSinceAck += Math.max(0, Math.min(bytes, unprocessed));
    if (this.processedSinceAck >= this.ackEvery) this.flushAck();
  }

  /** Acknowledges whatever was processed since the last ack (`o`, decimal byte count). */
  flushAck(): void {
    if (this.processedSinceAck === 0 || this.stateValue !== 'open') return;
    const count = this.processedSinceAck;
    this.processedSinceAck = 0;
    this.acknowledged += count;
    this.sendFrame(T.outputAck, String(count));
  }

  /** Closes the socket with 1000 (the user closed the tab); the server ends this party's part. */
  close(reason = 'closed'): void {
    if (this.stateValue === 'closed' || this.closeRequested) return;
    this.closeRequested = true;
    this.endReason ??= reason;
    this.endedBy ??= 'client';
    if (this.stateValue === 'reconnecting') {
      // No socket to close: the session's key gives it up instead.
      const session = this.resume.current;
      if (session) this.options.leave?.(session);
      this.stopResuming();
      return this.finish(normalClosure, reason);
    }
    if (this.socket) this.socket.close(normalClosure, reason);
    else this.closed(normalClosure, reason);
  }

  /** A new socket wired to this client: its frames, and its close. */
  private openSocket(): WebSocketLike {
    const socket = this.createSocket();
    this.socket = socket;
    socket.binaryType = 'arraybuffer';
    socket.onmessage = (event) => this.receive(event.data);
    socket.onerror = () => {
      // The close event follows with the details; an error alone changes nothing.
    };
    socket.onclose = (event) => this.closed(event.code, event.reason);
    return socket;
  }

  private createSocket(): WebSocketLike {
    if (this.options.createSocket) return this.options.createSocket(this.options.url);
    const Ctor =
      this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructorLike }).WebSocket;
    if (!Ctor) throw new Error('no WebSocket implementation: pass one in the options');
    return new Ctor(this.options.url);
  }

  private setState(state: TtyState): void {
    if (this.stateValue === state) return;
    this.stateValue = state;
    this.emit('state', state);
  }

  private receive(data: unknown): void {
    if (this.stateValue === 'closed') return;
    if (typeof data === 'string') {
      this.receiveText(data);
      return;
    }
    const bytes = toBytes(data);
    if (!bytes) return;
    if (this.stateValue !== 'open') {
      this.fail('the server sent terminal data before the session was authorised');
      return;
    }
    const frame = readServerFrame(bytes);
    if (frame) this.dispatch(frame);
  }

  /** Text frames carry only the answer to the auth frame. */
  private receiveText(text: string): void {
    if (this.stateValue === 'reconnecting') return this.resumeAnswered(text);
    if (this.stateValue !== 'authenticating') return;
    const answer = readSessionAnswer(text);
    if (answer.kind === 'unreadable') return this.fail('unexpected answer from the server');
    if (answer.kind === 'refused') {
      return this.fail(answer.message ?? 'the server refused the session');
    }
    if (answer.kind !== 'ok') return;
    this.setState('open');
    this.emit('open');
    const size = this.pendingSize;
    this.pendingSize = undefined;
    if (size) this.sendResize(size);
  }

  private dispatch(frame: ServerFrame): void {
    switch (frame.kind) {
      case 'output':
        this.received += frame.body.length;
        // Streaming: a character split across two frames is completed by the next one.
        this.emit('output', this.decoder.decode(frame.body, { stream: true }), frame.body.length);
        return;
      case 'session':
        return this.emit('session', frame.session);
      case 'audit':
        return this.audit(frame.event);
      case 'fileTransfer':
        return this.emit('fileTransfer', frame.event);
      case 'error':
        return this.emit('error', frame.message);
      case 'end':
        this.endReason ??= frame.reason;
        this.endedBy ??= 'server';
        this.emit('end', frame.reason);
        return this.close(frame.reason);
      case 'resumeKey':
        return this.resume.offered(frame.key);
      case 'mfaChallenge':
        return this.emit('mfaChallenge', frame.challenge);
    }
  }

  private audit(event: Record<string, unknown>): void {
    this.emit('audit', event);
    const notice = partyNotice(event);
    if (notice) this.emit('notice', notice);
    if (event.event !== 'resize' || typeof event.size !== 'string') return;
    const size = parseSize(event.size);
    // Our own resize comes back as an audit event too: only another party's size counts.
    if (size && event.size !== this.lastSize) this.emit('resize', size);
  }

  private sendResize(size: TerminalSize): void {
    const text = sizeText(size);
    if (text === this.lastSize) return;
    this.lastSize = text;
    this.sendFrame(
      T.resize,
      JSON.stringify({ event: 'resize', width: size.w, height: size.h, size: text }),
    );
  }

  /** Sends one frame if the session is open; says whether it did. */
  private sendFrame(type: (typeof T)[keyof typeof T], payload: string): boolean {
    if (this.stateValue !== 'open' || !this.socket) return false;
    this.socket.send(encodeEnvelope(type, encoder.encode(payload)));
    return true;
  }

  /** Keystrokes (`r`), kept until a resume could need them again. */
  private sendInput(data: string): void {
    if (this.stateValue !== 'open' || !this.socket) return;
    const bytes = encoder.encode(data);
    this.socket.send(encodeEnvelope(T.raw, bytes));
    this.resume.sentInput(data, bytes.length);
  }

  private fail(reason: string): void {
    this.endReason ??= reason;
    this.emit('error', reason);
    this.close(reason);
  }

  private closed(code: number, reason: string): void {
    if (this.stateValue === 'reconnecting') return this.resumeFailed();
    if (this.resumable(code)) return this.startResuming();
    this.finish(code, reason);
  }

  /**
   * The network dropped (1006: no close frame) an open session the server lets its owner
   * resume, and nobody chose to end it: it is worth resuming rather than ending.
   */
  private resumable(code: number): boolean {
    return (
      code === abnormalClosure &&
      this.stateValue === 'open' &&
      !this.closeRequested &&
      this.endedBy === undefined &&
      this.resume.offeredByServer
    );
  }

  private startResuming(): void {
    this.detachSocket();
    const grace = this.resume.begin();
    this.setState('reconnecting');
    this.emit('reconnecting', grace);
    this.resumeSoon();
  }

  /** Tries again after the next backoff step, or gives up when that is past the grace. */
  private resumeSoon(): void {
    if (!this.resume.next(() => this.tryResume())) {
      this.giveUp('the proxy holding it could not be reached again in time');
    }
  }

  /** One attempt: a new socket whose first frame names the session, its key and our offset. */
  private tryResume(): void {
    if (this.stateValue !== 'reconnecting') return;
    const socket = this.openSocket();
    socket.onopen = () => {
      const token = this.options.currentToken?.() ?? this.options.token;
      const frame = this.resume.firstFrame(token, this.received);
      if (frame) socket.send(frame);
    };
  }

  private resumeAnswered(answerText: string): void {
    const answer = readSessionAnswer(answerText);
    if (answer.kind === 'unreadable') return this.giveUp('unexpected answer from the server');
    if (answer.kind === 'refused') return this.giveUp(answer.message ?? 'the server refused it');
    if (answer.kind !== 'ok') return;
    // The server counts everything received as acknowledged from here (its log starts there).
    this.acknowledged = this.received;
    this.processedSinceAck = 0;
    this.setState('open');
    this.emit('resumed');
    // What was typed before the drop and never reached the server, then what was typed since.
    const unsent = this.resume.unconfirmed(answer.inputReceived);
    if (unsent.lost)
      this.emit('error', 'some keystrokes typed before the connection dropped were lost');
    for (const data of [...unsent.resend, ...this.resume.takeHeld()]) this.sendInput(data);
    const size = this.pendingSize;
    this.pendingSize = undefined;
    if (size) this.sendResize(size);
  }

  /** An attempt's socket closed before the session was resumed: try again while there is time. */
  private resumeFailed(): void {
    this.detachSocket();
    this.resumeSoon();
  }

  private giveUp(why: string): void {
    this.stopResuming();
    const reason = why.replace(/^the session cannot be resumed: /, '');
    this.endReason ??= `connection lost, and the session could not be resumed: ${reason}`;
    this.finish(abnormalClosure, '');
  }

  private stopResuming(): void {
    this.resume.cancel();
    const socket = this.socket;
    this.detachSocket();
    if (socket && socket.readyState <= 1) socket.close(normalClosure, 'closed');
  }

  private detachSocket(): void {
    if (this.socket) this.socket.onopen = this.socket.onmessage = this.socket.onclose = null;
    this.socket = undefined;
  }

  private finish(code: number, reason: string): void {
    if (this.stateValue === 'closed') return;
    const wasOpen = this.stateValue === 'open';
    this.setState('closed');
    const rest = this.decoder.decode();
    if (rest) this.emit('output', rest, 0);
    const why =
      this.endReason ??
      (reason ||
        (wasOpen
          ? `connection closed (code ${code})`
          : `could not connect to the server (code ${code})`));
    this.detachSocket();
    this.emit('close', { code, reason: why, endedBy: this.endedBy ?? 'socket' });
  }
}
