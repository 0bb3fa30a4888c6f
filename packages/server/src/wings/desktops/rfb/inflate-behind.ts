import { constants, createInflate, type Inflate } from 'node:zlib';
import { RfbProtocolError } from './rfb-errors.js';

/**
 * zlib's output buffer. Each time it fills, zlib goes back to the thread pool for the rest: at
 * its 16 KiB default a full-screen update took dozens of round trips.
 */
const inflateChunkBytes = 256 * 1024;

/**
 * One zlib stream of a desktop connection, inflated on zlib's thread pool behind the reading
 * (as ZRLE's is, zrle.ts): `write` never waits, and the bytes that come while a write is in
 * zlib go together as the next write, so a busy update costs a few round trips to the thread
 * pool, not one per rectangle. The inflated bytes go to `onOutput` in order; a write's output
 * is all handed over before zlib calls it back, so once `idle`, everything written is out.
 */
export class InflateBehind {
  readonly #inflate: Inflate;
  readonly #what: string;
  #waiting: Buffer[] = [];
  #waitingBytes = 0;
  #writing = false;
  #onProgress: (() => void)[] = [];
  #failure: Error | undefined;

  /** `what` names the stream in errors ("a Tight zlib stream"). */
  constructor(what: string, onOutput: (piece: Buffer) => void) {
    this.#what = what;
    this.#inflate = createInflate({ flush: constants.Z_SYNC_FLUSH, chunkSize: inflateChunkBytes });
    this.#inflate.on('data', (piece: Buffer) => {
      if (this.#failure) return;
      try {
        onOutput(piece);
      } catch (error) {
        this.fail(error as Error);
      }
    });
    this.#inflate.on('error', (error: Error) => {
      this.fail(new RfbProtocolError(`a broken ${what} (${error.message})`));
    });
    // A broken or closed zlib stream may never call back the write it had.
    this.#inflate.on('close', () => this.fail(new RfbProtocolError(`${what} after its end`)));
  }

  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Nothing is in zlib or waiting for it. */
  get idle(): boolean {
    return !this.#writing;
  }

  /** Compressed bytes waiting for zlib to finish the write it has. */
  get behindBytes(): number {
    return this.#waitingBytes;
  }

  write(piece: Buffer): void {
    if (this.#failure) return;
    if (this.#writing) {
      this.#waiting.push(piece);
      this.#waitingBytes += piece.length;
      return;
    }
    this.#writing = true;
    this.#inflate.write(piece, () => this.#written());
  }

  /** Resolves when zlib next finishes a write, or the stream fails. */
  progress(): Promise<void> {
    if (this.#failure || !this.#writing) return Promise.resolve();
    return new Promise((resolve) => this.#onProgress.push(resolve));
  }

  fail(error: Error): void {
    this.#failure ??= error;
    this.#writing = false;
    this.#waiting = [];
    this.#waitingBytes = 0;
    for (const resolve of this.#onProgress.splice(0)) resolve();
  }

  close(): void {
    this.#failure ??= new RfbProtocolError(`${this.#what} after its end`);
    this.#inflate.destroy();
  }

  #written(): void {
    if (this.#failure) return;
    if (this.#waiting.length > 0) {
      const batch = Buffer.concat(this.#waiting, this.#waitingBytes);
      this.#waiting = [];
      this.#waitingBytes = 0;
      this.#inflate.write(batch, () => this.#written());
    } else {
      this.#writing = false;
    }
    for (const resolve of this.#onProgress.splice(0)) resolve();
  }
}
