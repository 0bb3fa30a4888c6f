import type { BlobRange } from '../blob-store.js';

/**
 * Where blobs bound for an object store wait, in the cluster's database, until they are whole and
 * uploaded (docs/high-availability.md, "Recordings"). A recording is appended here piece by piece
 * while its session runs, so a proxy that dies loses at most the last flush interval; at its end
 * it is uploaded as one object and its entry removed. Each entry names the proxy that owns it:
 * only the owner appends or uploads, and another proxy adopts the entries of one that vanished.
 */
export interface BlobSpool {
  /** Creates the tables; call once before anything else. */
  init(): Promise<void>;
  /** Opens an entry for `owner`; false when the name is spooled already (by anyone). */
  begin(name: string, owner: string): Promise<boolean>;
  /**
   * Adds the next piece at byte `at` (the entry's size before it); false when `owner` no longer
   * holds the open entry (it was adopted). A retry of a piece that did land (the answer was lost
   * with the connection) finds it there and is not written twice.
   */
  append(name: string, owner: string, data: Buffer, at: number): Promise<boolean>;
  /** Marks the entry whole: nothing more is appended, it waits for its upload. */
  end(name: string, owner: string): Promise<boolean>;
  /** Makes the entry one whole blob held by `owner`, replacing any entry of that name. */
  replace(name: string, owner: string, data: Buffer): Promise<void>;
  entry(name: string): Promise<SpoolEntry | undefined>;
  /** The entry's pieces in order, cut to `range`; nothing when there is no entry. */
  pieces(name: string, range?: BlobRange): AsyncIterable<Buffer>;
  /** The entries whose names start with `prefix`, by name. */
  list(prefix?: string): Promise<SpoolEntry[]>;
  /**
   * Moves every entry of `from` to `to` at once and returns them as they were: of several
   * proxies adopting together, one gets all (a recording's parts are never split between two).
   */
  claimAll(from: string, to: string): Promise<SpoolEntry[]>;
  /** Removes the entry: only while `owner` holds it, when given. */
  remove(name: string, owner?: string): Promise<void>;
  close(): Promise<void>;
}

export interface SpoolEntry {
  name: string;
  /** The proxy that appends to it or will upload it. */
  owner: string;
  /** Whole: its writer finished (or it was adopted after its writer died). */
  ended: boolean;
  size: number;
}

/** Pieces read per query: bounded memory, few round trips (pieces are up to a flush each). */
export const spoolPageSize = 8;

/** The part of a piece at byte `at` that falls inside `[start, end)`, or undefined. */
export function cutPiece(data: Buffer, at: number, start: number, end: number): Buffer | undefined {
  const from = Math.max(0, start - at);
  const to = Math.min(data.length, end - at);
  return to > from ? data.subarray(from, to) : undefined;
}

/**
 * After an append that changed nothing: whether its piece is there already (an earlier try
 * landed). False when the entry was adopted or ended by another, or holds something else.
 */
export function landedBefore(entry: SpoolEntry | undefined, owner: string, end: number): boolean {
  return entry !== undefined && entry.owner === owner && entry.size === end;
}
