/**
 * Collects terminal output and writes it in one go per scheduled tick (an animation frame in the
 * browser), in chunks of at most `chunkBytes` payload bytes. Each chunk's write callback reports
 * its bytes as processed, and the end of a batch flushes the acknowledgement, so the server hears
 * about output only once the terminal has really parsed it (docs/protocol.md, flow control).
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
    chunks.forEach((chunk, index) => {
      const last = index === chunks.length - 1;
      this.options.sink.write(chunk.text, () => {
        if (this.disposed) return;
        this.options.acks.processed(chunk.bytes);
        if (last) this.options.acks.flushAck();
      });
    });
  }

  dispose(): void {
    this.disposed = true;
    this.pending = [];
  }
}

/**
 * The browser's scheduler: the next animation frame, or 100 ms when no frame comes (a hidden
 * tab gets none), so a background tab keeps acknowledging and never stalls the session.
 */
export function frameScheduler(
  requestFrame: (cb: () => void) => unknown,
  setTimer: (cb: () => void, ms: number) => unknown,
  fallbackMs = 100,
): Scheduler {
  return (run) => {
    let ran = false;
    const once = () => {
      if (ran) return;
      ran = true;
      run();
    };
    requestFrame(once);
    setTimer(once, fallbackMs);
  };
}
