import type { Readable, Writable } from 'node:stream';

/**
 * Named byte blobs: where recordings (and later desktop and database recordings) keep their
 * files. The store knows nothing of formats; those live above it (docs/recordings.md, "Storage").
 * The local directory is the one implementation so far; an S3 store must pass the same
 * conformance suite (blob-store.conformance.testkit.ts).
 */
export interface BlobStore {
  /** Prepares the storage (creates the directory); call once before writing. Idempotent. */
  init(): Promise<void>;
  /** Writes a whole blob, replacing any blob of that name; readers see the old or the new, never a mix. */
  put(name: string, data: Buffer | string): Promise<void>;
  /**
   * Starts a new blob that is written in order, piece by piece (a recording as it happens).
   * A name that exists already, or storage that fails, surfaces as 'error' on the stream; the
   * blob is complete once the stream emitted 'close' without an error.
   */
  append(name: string): Writable;
  /** The blob's bytes, or only `range` of them; undefined when there is no such blob. */
  get(name: string, range?: BlobRange): Promise<Buffer | undefined>;
  /** The same as a stream, for blobs too large to hold at once; undefined when there is none. */
  read(name: string, range?: BlobRange): Promise<Readable | undefined>;
  stat(name: string): Promise<BlobStat | undefined>;
  /** The names that start with `prefix`, sorted; [] when the storage does not exist yet. */
  list(prefix?: string): Promise<string[]>;
  /** Removes a blob; removing one that does not exist is not an error. */
  delete(name: string): Promise<void>;
}

/** Byte positions: `start` included (default 0), `end` excluded (default the blob's size). */
export interface BlobRange {
  start?: number;
  end?: number;
}

export interface BlobStat {
  size: number;
}

/**
 * Names are flat: letters, digits, `.`, `_` and `-`, starting with a letter or digit, so a name
 * is the same file name on disk and the same key in a bucket, and can never climb out of either.
 */
const blobNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export function isBlobName(name: string): boolean {
  return blobNamePattern.test(name);
}

export function assertBlobName(name: string): void {
  if (!isBlobName(name)) throw new InvalidBlobNameError(name);
}

export class InvalidBlobNameError extends Error {
  constructor(name: string) {
    super(`invalid blob name ${JSON.stringify(name.slice(0, 64))}`);
  }
}

/** A blob's stream read to its end, for stores whose `get` is their `read` held in memory. */
export async function readWhole(source: Readable | undefined): Promise<Buffer | undefined> {
  if (!source) return undefined;
  const pieces: Buffer[] = [];
  for await (const piece of source) pieces.push(piece as Buffer);
  return Buffer.concat(pieces);
}
