import type { ResumeKey } from '@postern/contracts';

/** The clock and timers a resume's retries run on: the system's, or a test's. */
export interface ResumeTimers {
  now(): number;
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const systemTimers: ResumeTimers = {
  now: () => Date.now(),
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * How long to wait before the next attempt to resume a dropped session: at once first (a
 * balancer's blip), then backing off to every 5 s, so that a proxy coming back is not flooded
 * by every browser it had while a network change is noticed within seconds.
 */
export function resumeDelayMs(attempt: number): number {
  return attempt === 0 ? 0 : Math.min(5_000, 250 * 2 ** attempt);
}

/** Keystrokes kept while the session is being resumed, sent once it is. */
const heldInputLimit = 64 * 1024;

/**
 * What a terminal client keeps to resume its session after the connection drops
 * (docs/protocol.md §6.1): the server's last key, the time left, the retries' backoff, and the
 * keystrokes typed meanwhile. TtyClient drives it; the sockets stay TtyClient's.
 */
export class SessionResume {
  private key: ResumeKey | undefined;
  private deadline = 0;
  private attempts = 0;
  private timer: unknown;
  private held: string[] = [];
  private heldBytes = 0;
  /** The last keystrokes sent, by the count of input bytes sent once each was. */
  private sent: { end: number; bytes: number; data: string }[] = [];
  private sentBytes = 0;
  private sentKept = 0;

  constructor(private readonly timers: ResumeTimers = systemTimers) {}

  /** The server's key (`k`); each resume brings a new one. */
  offered(key: ResumeKey): void {
    this.key = key;
  }

  /** The session and its current key, which also gives the session up (`terminalLeave`). */
  get current(): { sid: string; key: string } | undefined {
    return this.key && { sid: this.key.sid, key: this.key.key };
  }

  /** Whether the server lets this session be resumed. */
  get offeredByServer(): boolean {
    return (this.key?.grace_ms ?? 0) > 0;
  }

  /** The connection dropped: the grace starts now. Returns how long it lasts. */
  begin(): number {
    const grace = this.key?.grace_ms ?? 0;
    this.deadline = this.timers.now() + grace;
    this.attempts = 0;
    return grace;
  }

  /** Runs `attempt` after the next backoff step; false when that would be past the grace. */
  next(attempt: () => void): boolean {
    const delay = resumeDelayMs(this.attempts);
    this.attempts += 1;
    if (this.timers.now() + delay >= this.deadline) return false;
    this.timer = this.timers.set(attempt, delay);
    return true;
  }

  cancel(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
  }

  /** The first frame of a resume's socket; `received`: output payload bytes received so far. */
  firstFrame(token: string, received: number): string | undefined {
    const key = this.key;
    if (!key) return undefined;
    return JSON.stringify({ token, resume: { sid: key.sid, key: key.key, received } });
  }

  hold(data: string): void {
    if (this.heldBytes + data.length > heldInputLimit) return;
    this.held.push(data);
    this.heldBytes += data.length;
  }

  /**
   * Keystrokes sent over the socket: the last 64 KiB are kept, since those written just before
   * a drop may never have reached the server.
   */
  sentInput(data: string, bytes: number): void {
    if (!this.offeredByServer) return;
    this.sentBytes += bytes;
    this.sentKept += bytes;
    this.sent.push({ end: this.sentBytes, bytes, data });
    while (this.sentKept > heldInputLimit && this.sent.length > 1) {
      this.sentKept -= this.sent.shift()?.bytes ?? 0;
    }
  }

  /**
   * What was sent after the server's count of input it took (a resume's `input_received`), to
   * send again; `lost` when some of that is no longer kept. The count starts over from the
   * server's, as the keystrokes go out again.
   */
  unconfirmed(serverReceived: number): { resend: string[]; lost: boolean } {
    const missing = this.sent.filter((entry) => entry.end > serverReceived);
    const first = missing[0];
    const lost =
      serverReceived < this.sentBytes &&
      (first === undefined || first.end - first.bytes > serverReceived);
    this.sent = [];
    this.sentKept = 0;
    this.sentBytes = serverReceived;
    return { resend: missing.map((entry) => entry.data), lost };
  }

  /** The keystrokes held, in order, once the session is back. */
  takeHeld(): string[] {
    this.heldBytes = 0;
    return this.held.splice(0);
  }
}
