/**
 * Collects terminal output and writes it in one go per scheduled tick (right after the socket
 * message in the browser), in chunks of at most `chunkBytes` payload bytes. Each chunk's write
 * callback reports its bytes as processed, and once the terminal has processed everything it
 * was given the acknowledgement is flushed, so the server hears about output only once the
 * terminal has really parsed it (docs/protocol.md, flow control).
 * DOM-free: the scheduler and the sink are passed in.
 */
export interface OutputSink {
  /** Writes text; calls `done` once the terminal has processed it (xterm's write callback). */
  write(data: string, done: () => void): void;
}

export interface Acknowledger {
  processed(bytes: number): void;
  flushAck(): void;
}

export type Scheduler = (run: () => void) => void;

export interface OutputBatcherOptions {
  sink: OutputSink;
  acks: Acknowledger;
  /** When to write what has arrived; defaults to the next macrotask. */
  schedule?: Scheduler;
  /** The most payload bytes one write carries, so acks go out at least this often. */
  chunkBytes?: number;
}

interface Piece {
  text: string;
  bytes: number;
}

export class OutputBatcher {
  private pending: Piece[] = [];
  /** Writes handed to the terminal and not processed yet. */
  private writing = 0;
  private scheduled = false;
  private disposed = false;
  private readonly schedule: Scheduler;
  private readonly chunkBytes: number;

  constructor(private readonly options: OutputBatcherOptions) {
    this.schedule = options.schedule ?? ((run) => void setTimeout(run, 0));
    this.chunkBytes = options.chunkBytes ?? 64 * 1024;
  }

  /** Output as the client decoded it: the text and the payload bytes it came from. */
  push(text: string, bytes: number): void {
    if (this.disposed) return;
    this.pending.push({ text, bytes });
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => this.flush());
  }

  /** Writes everything pending now. */
  flush(): void {
    this.scheduled = false;
    if (this.disposed || this.pending.length === 0) return;
    const pieces = this.pending;
    this.pending = [];
    const chunks: Piece[] = [];
    let current: Piece = { text: '', bytes: 0 };
    for (const piece of pieces) {
      if (current.bytes > 0 && current.bytes + piece.bytes > this.chunkBytes) {
        chunks.push(current);
        current = { text: '', bytes: 0 };
      }
      current.text += piece.text;
      current.bytes += piece.bytes;
    }
    chunks.push(current);
    this.writing += chunks.length;
    for (const chunk of chunks) {
      this.options.sink.write(chunk.text, () => {
        if (this.disposed) return;
        this.writing--;
        this.options.acks.processed(chunk.bytes);
        // Caught up: whatever is left is acknowledged now. During a flood more is always
        // queued behind, and acks go out every `ackEvery` bytes instead of once per message.
        if (this.writing === 0 && this.pending.length === 0) this.options.acks.flushAck();
      });
    }
  }

  dispose(): void {
    this.disposed = true;
    this.pending = [];
  }
}

/**
 * The console's scheduler: right after the current task (the socket message), so output reaches
 * xterm at once and xterm's own write buffer paces the parsing (it yields every few ms, and draws
 * once per animation frame). Pieces pushed in the same task still make one batch. Waiting for an
 * animation frame here cost a frame of echo latency and, under a flood, left xterm idle between
 * frames.
 */
export const microtaskScheduler: Scheduler = (run) => queueMicrotask(run);
