import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { BlobStore } from '../../blobs/blob-store.js';
import { chainSeed, chunkLine, nextChain } from '../recordings/recording-integrity.js';
import { desktopBlobName, type DesktopKeyframe } from './desktop-recording-blobs.js';
import { desktopEventsMagic, encodeRecord, type StoredRecord } from './record-format.js';

/**
 * Appends a desktop recording's chunks: each write's records as one chunk of
 * `<sid>.desktop.events`, and its line in `<sid>.desktop.chunks.jsonl` with the chain hash the
 * terminal recordings use (a chunk's `gz` and `offset` are both its place in the events blob,
 * which is not compressed as a whole). A chunk that holds a keyframe is where a seek starts.
 */
export class DesktopChunkWriter {
  /** Bytes of the events blob written so far. */
  position = 0;
  chunks = 0;
  chain: string;
  readonly keyframes: DesktopKeyframe[] = [];
  private readonly events: Writable;
  private readonly list: Writable;

  constructor(blobs: BlobStore, sid: string, onError: (error: Error) => void) {
    this.chain = chainSeed(sid);
    this.events = blobs.append(desktopBlobName(sid, 'desktop.events'));
    this.list = blobs.append(desktopBlobName(sid, 'desktop.chunks.jsonl'));
    for (const stream of [this.events, this.list]) stream.on('error', onError);
  }

  /** Bytes handed to the events blob and not yet written (a slow or stuck disk). */
  get backlog(): number {
    return this.events.writableLength;
  }

  /** Resolves once the events blob has written what it holds. */
  async drained(): Promise<void> {
    if (this.events.writableNeedDrain) await once(this.events, 'drain');
  }

  /** Writes one chunk; returns its length. */
  append(records: StoredRecord[], keyframe?: Omit<DesktopKeyframe, 'at'>): number {
    const pieces = records.map(encodeRecord);
    if (this.position === 0) pieces.unshift(desktopEventsMagic);
    const bytes = Buffer.concat(pieces);
    const at = this.position;
    this.chain = nextChain(this.chain, bytes);
    const t = (records[0]?.ms ?? 0) / 1000;
    const record = { i: this.chunks++, gz: at, length: bytes.length, offset: at, t };
    this.list.write(chunkLine({ ...record, chain: this.chain }));
    this.events.write(bytes);
    if (keyframe) this.keyframes.push({ ...keyframe, at });
    this.position += bytes.length;
    return bytes.length;
  }

  /** What the seal says of the chunks: the events' size, the keyframes, the chain. */
  sealed() {
    return {
      size: this.position,
      keyframes: this.keyframes,
      integrity: { algorithm: 'sha256-chain' as const, chunks: this.chunks, head: this.chain },
    };
  }

  /** Completes both blobs. */
  async finish(): Promise<void> {
    const streams = [this.events, this.list];
    for (const stream of streams) stream.end();
    await Promise.all(streams.map((stream) => once(stream, 'close')));
  }

  destroy(): void {
    this.events.destroy();
    this.list.destroy();
  }
}
