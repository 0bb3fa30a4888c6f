import type { Readable } from 'node:stream';
import type { BlobStore } from '../../blobs/blob-store.js';
import {
  exactReader,
  parseChunkList,
  walkChunks,
  type ChunkRecord,
} from '../recordings/recording-integrity.js';
import { desktopBlobName, type DesktopRecordingIndex } from './desktop-recording-blobs.js';
import { parseRecords, type StoredRecord } from './record-format.js';

/** The records of a sealed desktop recording from one chunk on, each chunk checked first. */
export interface RecordCursor {
  /** The next record; undefined at the end, or at damage (then `damage` says what). */
  next(): Promise<StoredRecord | undefined>;
  /** Why the records stopped early: a chunk whose bytes or place do not match the chunk list. */
  readonly damage: string | undefined;
  close(): void;
}

/** A sealed recording's chunk list: read once by a player, for every seek. */
export async function readChunks(
  blobs: BlobStore,
  index: DesktopRecordingIndex,
): Promise<ChunkRecord[]> {
  const list = await blobs.get(desktopBlobName(index.sid, 'desktop.chunks.jsonl'));
  return parseChunkList(list ?? Buffer.alloc(0));
}

/**
 * Reads from the chunk that starts at byte `at` (a keyframe's, or 0), one chunk at a time:
 * each is checked against the chunk list's chain (recording-integrity.ts, shared with terminal
 * recordings) before its records are given out, so at most one chunk is held, however long the
 * recording.
 */
export async function openRecords(
  blobs: BlobStore,
  index: DesktopRecordingIndex,
  at: number,
  chunkList?: ChunkRecord[],
): Promise<RecordCursor> {
  const chunks = chunkList ?? (await readChunks(blobs, index));
  const first = chunks.findIndex((chunk) => chunk.gz === at);
  const source =
    first >= 0
      ? await blobs.read(desktopBlobName(index.sid, 'desktop.events'), { start: at })
      : undefined;
  return new ChunkedRecords(index, chunks, first, source);
}

const damaged = 'the recording is damaged here: what follows was altered or is missing';

class ChunkedRecords implements RecordCursor {
  damage: string | undefined;
  private queue: StoredRecord[] = [];
  private readonly read: ((length: number) => Promise<Buffer>) | undefined;

  constructor(
    private readonly index: DesktopRecordingIndex,
    private readonly chunks: ChunkRecord[],
    private chunk: number,
    private readonly source: Readable | undefined,
  ) {
    this.read = source && exactReader(source);
    if (!source) this.damage = damaged;
  }

  async next(): Promise<StoredRecord | undefined> {
    while (this.queue.length === 0 && !this.damage && this.read) {
      if (this.chunk >= this.chunks.length) {
        if (this.chunks.length < this.index.integrity.chunks) this.damage = damaged;
        return undefined;
      }
      await this.readChunk(this.read);
    }
    return this.queue.shift();
  }

  close(): void {
    this.source?.destroy();
  }

  private async readChunk(read: (length: number) => Promise<Buffer>): Promise<void> {
    let member: Buffer | undefined;
    const bad = await walkChunks(this.index.sid, this.chunks, this.chunk, read, (_, bytes) => {
      member = bytes;
      return false; // one chunk at a time
    });
    const record = this.chunks[this.chunk]!;
    this.chunk += 1;
    if (bad || !member) {
      this.damage = damaged;
      return;
    }
    const parsed = parseRecords(member, record.gz);
    if (parsed.damaged || parsed.end !== record.gz + record.length) this.damage = damaged;
    this.queue = parsed.records.map((placed) => placed.record);
  }
}
