import { maxHandshakeBytes, MysqlWireError, packet } from './my-wire.js';

export interface CommandHooks {
  /** Whether a command must arrive whole and be judged before any of its bytes go on. */
  holds(command: number, length: number): boolean;
  /**
   * A held command, whole: returns the payload to forward (itself or a rewrite), or undefined
   * to drop it (the hook answered the client).
   */
  judge(payload: Buffer): Buffer | undefined;
  /** A forwarded command's payload, its first `keepBytes` (for the audit). */
  passed(payload: Buffer, truncated: boolean): void;
}

type Mode = 'head' | 'pass' | 'plain' | 'hold';

/**
 * Walks the client's packets on their way to the server without copying what passes through.
 * A command is a packet with sequence number 0; its first byte says which. Most commands are
 * forwarded as their bytes arrive and handed to `passed` for the audit; the few the proxy must
 * be able to refuse (`holds`) are gathered whole first. Packets in the middle of an exchange
 * (a long query's continuations, a LOAD DATA LOCAL file) pass untouched.
 */
export class CommandGate {
  readonly #head = Buffer.alloc(5);
  #headHave = 0;
  #headNeed = 4;
  /** The head's first byte is in an earlier chunk, already past. */
  #headSplit = false;
  #mode: Mode = 'head';
  #remaining = 0;
  #payloadBytes = 0;
  #kept: Buffer[] = [];
  #keptBytes = 0;

  constructor(
    private readonly hooks: CommandHooks,
    private readonly keepBytes = 64 * 1024,
  ) {}

  /** Appends to `out` the bytes of `chunk` to forward, in order. */
  push(chunk: Buffer, out: Buffer[]): void {
    let at = 0;
    let runStart = 0;
    let headStart = 0;
    while (at < chunk.length) {
      if (this.#mode === 'head') {
        if (this.#headHave === 0) {
          headStart = at;
          this.#headSplit = false;
        }
        const copied = chunk.copy(
          this.#head,
          this.#headHave,
          at,
          at + this.#headNeed - this.#headHave,
        );
        this.#headHave += copied;
        at += copied;
        if (this.#headHave < this.#headNeed) break;
        const length = this.#head.readUIntLE(0, 3);
        const seq = this.#head[3]!;
        if (this.#headNeed === 4 && seq === 0 && length > 0) {
          this.#headNeed = 5;
          continue;
        }
        const command = this.#headNeed === 5 ? this.#head[4]! : undefined;
        this.#remaining = length - (this.#headNeed - 4);
        this.#payloadBytes = length;
        const head = Buffer.from(this.#head.subarray(0, this.#headNeed));
        if (command !== undefined && this.hooks.holds(command, length)) {
          if (length > maxHandshakeBytes) {
            throw new MysqlWireError(`a command of ${length} bytes is refused`);
          }
          if (!this.#headSplit && headStart > runStart)
            out.push(chunk.subarray(runStart, headStart));
          runStart = at;
          this.#mode = 'hold';
          this.#kept = [head];
          this.#keptBytes = head.length;
        } else {
          if (this.#headSplit) {
            out.push(head);
            runStart = at;
          }
          // An audited command keeps its first byte (the command) and what follows.
          this.#mode = command === undefined ? 'plain' : 'pass';
          this.#kept = command === undefined ? [] : [head.subarray(4)];
          this.#keptBytes = command === undefined ? 0 : 1;
        }
        this.#headHave = 0;
        this.#headNeed = 4;
        if (this.#remaining === 0) runStart = this.#finish(at, runStart, out);
        continue;
      }
      const take = Math.min(this.#remaining, chunk.length - at);
      if (this.#mode === 'hold' || (this.#mode === 'pass' && this.#keptBytes < this.keepBytes)) {
        const keep =
          this.#mode === 'hold' ? take : Math.min(take, this.keepBytes - this.#keptBytes);
        this.#kept.push(chunk.subarray(at, at + keep));
        this.#keptBytes += keep;
      }
      at += take;
      this.#remaining -= take;
      if (this.#mode === 'hold') runStart = at;
      if (this.#remaining === 0) runStart = this.#finish(at, runStart, out);
    }
    if (this.#mode === 'head' && this.#headHave > 0) {
      // A head cut by the chunk's end waits in #head; what came before it goes on now.
      if (!this.#headSplit && headStart > runStart) out.push(chunk.subarray(runStart, headStart));
      this.#headSplit = true;
    } else if (this.#mode !== 'hold' && runStart < chunk.length) {
      out.push(chunk.subarray(runStart, chunk.length));
    }
  }

  /** A packet ended at `at`; returns where the forwardable run now starts. */
  #finish(at: number, runStart: number, out: Buffer[]): number {
    const mode = this.#mode;
    const kept = this.#kept;
    this.#mode = 'head';
    this.#kept = [];
    if (mode === 'hold') {
      const whole = Buffer.concat(kept, this.#keptBytes);
      const payload = whole.subarray(4);
      const verdict = this.hooks.judge(payload);
      if (verdict === payload) out.push(whole);
      else if (verdict) out.push(packet(whole[3]!, verdict));
      return at;
    }
    if (mode === 'pass') {
      const payload = kept.length === 1 ? kept[0]! : Buffer.concat(kept, this.#keptBytes);
      this.hooks.passed(payload, this.#keptBytes < this.#payloadBytes);
    }
    return runStart;
  }
}
