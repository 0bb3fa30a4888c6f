import { Writable } from 'node:stream';
import type { BlobSpool } from './blob-spool.js';

/** This much waiting in memory is sent at once, without waiting for the flush interval. */
const flushBytes = 1024 * 1024;
/** Past this much waiting (the spool away for a while), writers wait: backpressure. */
const maxPendingBytes = 64 * 1024 * 1024;
/** While the spool's database is away (a restart, a failover), flushes are retried this often… */
const retryMs = 500;
/** …for this long, after which the append fails like any storage failure. */
const giveUpMs = 60_000;

/** Thrown when another proxy adopted the blob (this one was taken for dead): writing stops. */
export class BlobAdoptedError extends Error {
  override name = 'BlobAdoptedError';
  constructor(name: string) {
    super(`blob ${name} was taken over by another proxy`);
  }
}

/**
 * An append into the spool. Bytes wait in memory at most `flushIntervalMs` (or until a MiB has
 * gathered), then go to the spool as one piece: what a proxy killed mid-session loses is what
 * it had not flushed. Ending flushes the rest and marks the entry whole; 'close' then means the
 * blob is durable in shared storage, and `onEnded` starts its upload.
 */
export class SpooledAppend extends Writable {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes the spool holds: where the next piece goes. */
  private written = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** A one-piece flush is queued and has not started: another would only repeat it. */
  private pieceQueued = false;

  constructor(
    private readonly target: {
      name: string;
      owner: string;
      spool: BlobSpool;
      /** Settles once the entry is opened; rejects when the name is taken. */
      opened: Promise<void>;
    },
    private readonly flushIntervalMs: number,
    private readonly onEnded: () => void,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error) => void) {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= maxPendingBytes) {
      this.flush().then(() => callback(), callback);
      return;
    }
    if (this.pendingBytes >= flushBytes) this.flushInBackground();
    else this.timer ??= setTimeout(() => this.onInterval(), this.flushIntervalMs);
    callback();
  }

  private onInterval(): void {
    this.timer = undefined;
    this.flushInBackground();
  }

  /** One piece of what waits now (a timer's or a full MiB's flush): at most one queued at once. */
  private flushInBackground(): void {
    if (this.pieceQueued) return;
    this.pieceQueued = true;
    this.flush('piece').catch((error: Error) => this.destroy(error));
  }

  override _final(callback: (error?: Error) => void) {
    const { name, owner, spool } = this.target;
    this.flush()
      .then(() => retrying(() => spool.end(name, owner)))
      .then((held) => {
        if (!held) throw new BlobAdoptedError(name);
        this.onEnded();
        callback();
      }, callback)
      .catch(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    clearTimeout(this.timer);
    callback(error);
  }

  /**
   * Sends what waits in memory to the spool, one flush at a time, in order. `all` (the end, a
   * reader) also sends what arrives meanwhile; `piece` sends one piece and leaves later writes to
   * their own interval, so a busy session writes a row per interval (or per MiB), not one per
   * database round trip.
   */
  flush(mode: 'all' | 'piece' = 'all'): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { name, owner, spool, opened } = this.target;
    this.flushing = this.flushing.then(async () => {
      if (mode === 'piece') this.pieceQueued = false;
      await opened;
      for (let first = true; this.pendingBytes > 0 && (first || mode === 'all'); first = false) {
        const data = Buffer.concat(this.pending);
        this.pending = [data];
        const at = this.written;
        const held = await retrying(() => spool.append(name, owner, data, at));
        this.pending.shift();
        this.pendingBytes -= data.length;
        this.written += data.length;
        if (!held) throw new BlobAdoptedError(name);
      }
      // What arrived during the piece waits for its own interval (or its own MiB).
      if (this.pendingBytes >= flushBytes) this.flushInBackground();
      else if (this.pendingBytes > 0) {
        this.timer ??= setTimeout(() => this.onInterval(), this.flushIntervalMs);
      }
    });
    return this.flushing;
  }
}

/**
 * A spool call, tried again while it fails for up to `giveUpMs`: a database restart must not end
 * the recording (and with `fail_closed`, the session). The bytes wait in memory meanwhile.
 */
async function retrying<T>(call: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (Date.now() - started >= giveUpMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}
