import { Readable, type Writable } from 'node:stream';
import {
  assertBlobName,
  readWhole,
  type BlobRange,
  type BlobStat,
  type BlobStore,
} from '../blob-store.js';
import type { BlobSpool } from './blob-spool.js';
import { SpooledAppend } from './spooled-append.js';

/** A store that can write one blob from pieces without holding them all (S3's multipart). */
interface UploadingStore extends BlobStore {
  upload?(name: string, pieces: AsyncIterable<Buffer>): Promise<void>;
  writableProblem?(): Promise<string | undefined>;
  /** Removes the parts of uploads started before `before` that never completed. */
  abortStaleUploads?(before: Date): Promise<number>;
  close?(): void;
}

export interface SpooledBlobStoreOptions {
  /** The proxy this process is (its registry id): it owns what it writes. */
  owner: string;
  /** How long written bytes may wait in memory before they reach the spool (default 2 s). */
  flushIntervalMs?: number;
  /** How often uploads that failed (the object store away) are tried again (default 10 s). */
  retryIntervalMs?: number;
  /** Told of failed uploads and writes that went to the spool instead; they are retried. */
  onError?: (error: unknown, what: string) => void;
  /** Told, per upload, the seconds from the blob's end to its upload (the upload lag metric). */
  onUploaded?: (lagSeconds: number) => void;
}

/**
 * An object store (S3) with the spool in front (docs/high-availability.md, "Recordings"): appends
 * go to the spool as the session runs and are uploaded as one object when whole; a put that the
 * object store refuses waits in the spool. Readers see the spool's entry while there is one and
 * the object after, so every proxy reads a recording the same way wherever its bytes are.
 */
export class SpooledBlobStore implements BlobStore {
  private readonly appending = new Map<string, SpooledAppend>();
  /** One upload, put or adoption per name at a time in this process. */
  private readonly busy = new Map<string, Promise<unknown>>();
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly owner: string;
  /** When each of this proxy's blobs was whole (its append ended, or it was adopted). */
  private readonly endedAt = new Map<string, number>();
  /** Blobs of this proxy waiting for their upload, as of the last pass (a metric). */
  waiting = 0;

  constructor(
    readonly target: UploadingStore,
    readonly spool: BlobSpool,
    private readonly options: SpooledBlobStoreOptions,
  ) {
    this.owner = options.owner;
  }

  async init(): Promise<void> {
    await this.target.init();
    await this.spool.init();
    if (this.retryTimer) return;
    this.retryTimer = setInterval(
      () => void this.uploadPending(),
      this.options.retryIntervalMs ?? 10_000,
    );
    this.retryTimer.unref();
  }

  async put(name: string, data: Buffer | string): Promise<void> {
    assertBlobName(name);
    const body = typeof data === 'string' ? Buffer.from(data) : data;
    await this.exclusive(name, async () => {
      try {
        await this.target.put(name, body);
      } catch (error) {
        this.options.onError?.(
          error,
          `writing ${name} to the object store failed; it waits in the spool`,
        );
        await this.spool.replace(name, this.owner, body);
        return;
      }
      // An older version waiting in the spool must not be uploaded over this one.
      await this.spool.remove(name);
    });
  }

  append(name: string): Writable {
    assertBlobName(name);
    const opened = this.openEntry(name);
    // Surfaced by the first flush or the end; never an unhandled rejection when there is neither.
    opened.catch(() => undefined);
    const writer = new SpooledAppend(
      { name, owner: this.owner, spool: this.spool, opened },
      this.options.flushIntervalMs ?? 2000,
      () => {
        this.endedAt.set(name, Date.now());
        void this.upload(name).catch((error: unknown) => this.uploadFailed(name, error));
      },
    );
    this.appending.set(name, writer);
    writer.once('close', () => this.appending.delete(name));
    return writer;
  }

  async get(name: string, range: BlobRange = {}): Promise<Buffer | undefined> {
    return readWhole(await this.read(name, range));
  }

  async read(name: string, range: BlobRange = {}): Promise<Readable | undefined> {
    const entry = await this.currentEntry(name);
    if (!entry) return this.target.read(name, range);
    return Readable.from(this.readSpooled(name, range, entry.size));
  }

  async stat(name: string): Promise<BlobStat | undefined> {
    const entry = await this.currentEntry(name);
    return entry ? { size: entry.size } : this.target.stat(name);
  }

  /** The spool's entry of `name` with what this process still holds of it flushed in first. */
  private async currentEntry(name: string) {
    assertBlobName(name);
    await this.appending
      .get(name)
      ?.flush()
      .catch(() => undefined);
    return this.spool.entry(name);
  }

  /**
   * The spool is read first, then the store: an upload puts the object before it removes the
   * spool's entry, so a blob uploaded meanwhile is in one answer or the other. Read together,
   * an upload finishing between the two reads left the blob out of both.
   */
  async list(prefix = ''): Promise<string[]> {
    const spooled = await this.spool.list(prefix);
    const stored = await this.target.list(prefix);
    return [...new Set([...stored, ...spooled.map((entry) => entry.name)])].sort();
  }

  async delete(name: string): Promise<void> {
    assertBlobName(name);
    await this.exclusive(name, async () => {
      await this.spool.remove(name);
      await this.target.delete(name);
    });
  }

  /**
   * Takes over the spooled blobs of proxies that are gone (`isLive` says no): whole ones are
   * uploaded; open ones, whose writer died mid-way, are ended as they are. Returns the names
   * taken, for their formats to seal (a recording whose proxy died has no seal).
   */
  async adopt(isLive: (owner: string) => boolean): Promise<string[]> {
    const gone = new Set<string>();
    for (const entry of await this.spool.list()) {
      if (entry.owner !== this.owner && !isLive(entry.owner)) gone.add(entry.owner);
    }
    const adopted: string[] = [];
    // All of a dead proxy's entries at once: a recording's parts stay with one adopter.
    for (const owner of gone) {
      for (const entry of await this.spool.claimAll(owner, this.owner)) {
        if (!entry.ended) await this.spool.end(entry.name, this.owner);
        this.endedAt.set(entry.name, Date.now());
        adopted.push(entry.name);
      }
    }
    return adopted.sort();
  }

  /** Uploads this proxy's whole entries: those just ended, adopted, or left by a failed upload. */
  async uploadPending(): Promise<void> {
    let entries;
    try {
      entries = await this.spool.list();
    } catch (error) {
      this.options.onError?.(error, 'listing the spooled blobs failed');
      return;
    }
    const mine = entries.filter((entry) => entry.ended && entry.owner === this.owner);
    this.waiting = mine.length;
    for (const entry of mine) {
      await this.upload(entry.name).catch((error: unknown) => this.uploadFailed(entry.name, error));
    }
  }

  async writableProblem(): Promise<string | undefined> {
    return this.target.writableProblem?.();
  }

  async close(): Promise<void> {
    clearInterval(this.retryTimer);
    await Promise.allSettled([...this.busy.values()]);
    await this.spool.close();
    this.target.close?.();
  }

  private async openEntry(name: string): Promise<void> {
    // An object store that is away must not stop recordings: the spool's claim is what counts.
    const stored = await this.target.stat(name).catch(() => undefined);
    if (stored || !(await this.spool.begin(name, this.owner))) {
      throw new Error(`blob ${name} exists already`);
    }
  }

  /** One entry's pieces, then (when it was uploaded and removed while being read) the object's rest. */
  private async *readSpooled(name: string, range: BlobRange, size: number): AsyncGenerator<Buffer> {
    const start = range.start ?? 0;
    const end = Math.min(range.end ?? size, size);
    let read = 0;
    for await (const piece of this.spool.pieces(name, range)) {
      read += piece.length;
      yield piece;
    }
    if (start + read >= end) return;
    const rest = await this.target.read(name, { start: start + read, end: range.end });
    if (rest) for await (const piece of rest) yield piece as Buffer;
  }

  private upload(name: string): Promise<void> {
    return this.exclusive(name, async () => {
      const entry = await this.spool.entry(name);
      if (!entry?.ended || entry.owner !== this.owner) return;
      const pieces = this.spool.pieces(name);
      if (this.target.upload) {
        await this.target.upload(name, pieces);
      } else {
        const all: Buffer[] = [];
        for await (const piece of pieces) all.push(piece);
        await this.target.put(name, Buffer.concat(all));
      }
      await this.spool.remove(name, this.owner);
      const ended = this.endedAt.get(name);
      this.endedAt.delete(name);
      if (ended !== undefined) this.options.onUploaded?.((Date.now() - ended) / 1000);
    });
  }

  private uploadFailed(name: string, error: unknown): void {
    this.options.onError?.(
      error,
      `uploading ${name} failed; it stays in the spool and is tried again`,
    );
  }

  private exclusive<T>(name: string, task: () => Promise<T>): Promise<T> {
    const previous = this.busy.get(name) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(task);
    this.busy.set(name, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.busy.get(name) === next) this.busy.delete(name);
      });
    return next;
  }
}
