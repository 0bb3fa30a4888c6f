import { randomUUID } from 'node:crypto';
import {
  encodeEnvelope,
  terminalMessageTypes as T,
  type ActiveSessionJson,
  type ParticipantMode,
} from '@postern/contracts';
import type { WebSocket } from 'ws';
import type { EndKind, Party } from '../sessions/party.js';
import type { CredentialMarks } from '../../access-control/locks/lock-watcher.js';
import { truncateReason } from '../../websocket/frames.js';
import { OutputLog } from './output-log.js';

/** The most output payload one `r` frame carries (docs/protocol.md §3). */
export const maxOutputFrameBytes = 128 * 1024;
/** A frame's room at first; it doubles while frames keep filling up, up to the maximum. */
const minOutputFrameBytes = 16 * 1024;

/** `0A 01 31` version "1", `12 01 72` type "r", `1A` payload, then the varint length. */
const rawHeader = [0x0a, 0x01, 0x31, 0x12, 0x01, T.raw.charCodeAt(0), 0x1a];
/** Room for the `r` header: the fixed bytes and a varint of at most 3 bytes (lengths < 2 MiB). */
const headerRoom = rawHeader.length + 3;

/**
 * A browser tab in a session: each call becomes one envelope frame on its socket.
 *
 * Output is coalesced: sshd hands over a PTY's output a few KiB at a time, and a burst of SSH
 * packets read together becomes one `r` frame, sent once the current I/O callback is done
 * (setImmediate), so a keystroke's echo waits for nothing. Every WebSocket message costs the
 * browser an IPC hop and an event, and the proxy a write, whatever its size, so this is what lets
 * both keep up with a flood. A frame starts with room for 16 KiB; while frames fill up (a flood)
 * the room doubles up to 128 KiB, and it falls back once a frame goes out unfilled, so a quiet
 * terminal does not hold large buffers. Other frames first flush the output before them, so the
 * order never changes.
 *
 * A session's owner may resume it over a new socket when the connection drops (`keepForResume`,
 * `moveTo`): the party then keeps what it sent until the client acknowledges it (output-log.ts).
 */
export class WebSocketParty implements Party {
  readonly mfaDevice: string | undefined;
  readonly sessionMfaDevice: string | undefined;
  readonly accessRequests: readonly string[] | undefined;
  readonly botInstance: string | undefined;
  readonly id = randomUUID();
  private closed = false;
  /** Output not yet sent: a frame being filled, with room for the header before the payload. */
  private frame: Buffer | undefined;
  private used = 0;
  /** The room of the next frame. */
  private room = minOutputFrameBytes;
  private flushScheduled = false;
  /** Input payload bytes taken from the client, which a resume's client counts from. */
  inputReceived = 0;
  /** Output sent and not yet acknowledged, for a resume; only for a session's owner. */
  private log: OutputLog | undefined;

  constructor(
    private socket: WebSocket,
    readonly user: string,
    readonly roles: readonly string[],
    readonly mode: ParticipantMode,
    marks: CredentialMarks = {},
  ) {
    this.mfaDevice = marks.mfaDevice;
    this.sessionMfaDevice = marks.sessionMfaDevice;
    this.accessRequests = marks.accessRequests;
    this.botInstance = marks.botInstance;
  }

  output(chunk: Uint8Array): void {
    if (this.closed) return;
    let offset = 0;
    while (offset < chunk.length) {
      if (!this.frame) {
        this.frame = Buffer.allocUnsafe(headerRoom + this.room);
        this.used = 0;
      }
      const room = this.frame.length - headerRoom;
      const n = Math.min(room - this.used, chunk.length - offset);
      this.frame.set(chunk.subarray(offset, offset + n), headerRoom + this.used);
      this.used += n;
      offset += n;
      if (this.used === room) {
        this.room = Math.min(maxOutputFrameBytes, room * 2);
        this.flushOutput();
      }
    }
    if (this.frame && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        // Sent before it filled up: the flood, if any, is over.
        if (this.frame) this.room = minOutputFrameBytes;
        this.flushOutput();
      });
    }
  }

  event(event: Record<string, unknown>): void {
    this.send(encodeEnvelope(T.audit, JSON.stringify(event)));
  }

  sessionData(session: ActiveSessionJson): void {
    this.send(encodeEnvelope(T.sessionData, JSON.stringify({ session })));
  }

  error(message: string): void {
    this.send(encodeEnvelope(T.error, message));
  }

  /** From now on, keep what is sent until it is acknowledged, so the client may resume. */
  keepForResume(): void {
    this.log ??= new OutputLog();
  }

  /** The client's keystrokes (`r`): counted, so a resumed client knows what did not arrive. */
  tookInput(bytes: number): void {
    this.inputReceived += bytes;
  }

  /** The client acknowledged `bytes` more output (`o`). */
  acknowledged(bytes: number): void {
    this.log?.acknowledge(bytes);
  }

  /** Output kept for a resume: sent and not acknowledged (flow control bounds it). */
  heldForResume(): number {
    return this.log ? this.log.sent - this.log.acknowledged : 0;
  }

  /** Whether this party's client talks over `socket` (a resumed party has moved off it). */
  isOn(socket: WebSocket): boolean {
    return this.socket === socket;
  }

  /** Whether a client that received `received` bytes could resume on a new socket. */
  canResumeFrom(received: number): boolean {
    return !this.closed && this.log !== undefined && this.log.holds(received);
  }

  /**
   * Moves the party to `socket` (a resume): the old socket, if it still looks open, is cut off,
   * and the output the client did not receive is sent again, first. Returns how many bytes the
   * client received without acknowledging them: from now on they count as acknowledged.
   */
  moveTo(socket: WebSocket, received: number): number | undefined {
    this.flushOutput(); // what was being gathered belongs to the log, before the old socket goes
    const log = this.log;
    if (this.closed || !log?.holds(received)) return undefined;
    const newlyAcknowledged = received - log.acknowledged;
    const missed = log.after(received) ?? [];
    const old = this.socket;
    this.socket = socket;
    if (old !== socket) old.terminate();
    for (const chunk of missed) this.sendRaw(encodeEnvelope(T.raw, chunk));
    return newlyAcknowledged;
  }

  /** Sends the key that resumes the session over a new socket (`k`). */
  resumeKey(key: object): void {
    this.send(encodeEnvelope(T.resumeKey, JSON.stringify(key)));
  }

  queuedBytes(): number {
    return this.socket.bufferedAmount;
  }

  end(reason: string, kind: EndKind = 'ended'): void {
    if (this.closed) return;
    // Taken away: the terminal prints it as an error, not as an ordinary end.
    if (kind === 'revoked') this.send(encodeEnvelope(T.error, reason));
    this.send(encodeEnvelope(T.sessionEnd, JSON.stringify({ reason })));
    this.closed = true;
    this.socket.close(kind === 'shutdown' ? 1001 : 1000, truncateReason(reason));
  }

  /** Sends the output gathered so far as one `r` frame, its header written just before it. */
  private flushOutput(): void {
    const frame = this.frame;
    if (!frame) return;
    this.frame = undefined;
    const length = this.used;
    const lengthBytes = length < 0x80 ? 1 : length < 0x4000 ? 2 : 3;
    const start = headerRoom - rawHeader.length - lengthBytes;
    frame.set(rawHeader, start);
    let at = start + rawHeader.length;
    let n = length;
    while (n >= 0x80) {
      frame[at++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    frame[at] = n;
    this.log?.append(frame.subarray(headerRoom, headerRoom + length));
    this.sendRaw(frame.subarray(start, headerRoom + length));
  }

  private send(frame: Uint8Array): void {
    this.flushOutput();
    this.sendRaw(frame);
  }

  private sendRaw(frame: Uint8Array): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(frame);
  }
}
