import { OutputGate } from './output-gate.js';
import type { SessionChannel } from './session-channel.js';
import type { SessionParties } from './session-parties.js';
import { Utf8Boundary } from './utf8-boundary.js';

export interface SessionOutputOptions {
  channel: SessionChannel;
  parties: SessionParties;
  now: () => number;
  /**
   * A terminal's output is text: it is cut on character boundaries and written to `screen` (the
   * mirror) and `record` (the recording). Without a terminal, bytes pass through unchanged.
   */
  terminal?: {
    screen(data: Uint8Array): void;
    record(data: Uint8Array): void;
  };
  /** The recording is writing slower than output arrives: hold the channel as for a party. */
  recordingBehind: () => boolean;
}

/**
 * The output path of a live session: from the channel to the screen mirror, the recording and
 * every party. Flow control pauses the channel while any party (or the recording) is too far
 * behind, so a flood (`yes`) never fills memory and Ctrl-C is answered quickly.
 */
export class SessionOutput {
  private readonly utf8: Utf8Boundary | undefined;
  private readonly gate: OutputGate;

  constructor(private readonly options: SessionOutputOptions) {
    this.gate = new OutputGate(options.channel, options.now);
    if (options.terminal) this.utf8 = new Utf8Boundary();
  }

  /** When the channel was paused, while it is. */
  get pausedSince(): number | undefined {
    return this.gate.pausedSince;
  }

  push(chunk: Uint8Array): void {
    const data = this.utf8 ? this.utf8.push(asBuffer(chunk)) : chunk;
    if (data.length === 0) return;
    this.options.terminal?.screen(data);
    this.options.terminal?.record(data);
    this.options.parties.deliver(data);
    this.gate.pauseIfBehind(this.backlog());
  }

  /** The session ends: bytes held back for an unfinished character go out as they are. */
  flush(): void {
    const rest = this.utf8?.flush();
    if (!rest?.length) return;
    this.options.parties.deliverLast(rest);
    this.options.terminal?.record(rest);
  }

  /** A party acknowledged or left, or the recording caught up: resume if all are close enough. */
  maybeResume(): void {
    this.gate.resumeIfCaughtUp(this.backlog());
  }

  private backlog() {
    return {
      viewers: this.options.parties.backlog(),
      recordingBehind: this.options.recordingBehind(),
    };
  }
}

const asBuffer = (chunk: Uint8Array) =>
  Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
