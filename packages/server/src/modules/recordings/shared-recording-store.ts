import { meteredBlobStore } from '../../blobs/metered-blob-store.js';
import type { SpooledBlobStore } from '../../blobs/spool/spooled-blob-store.js';
import { BlobRecordingStore, type CrashSealer } from './recording-store.js';

/** A multipart upload started this long ago is abandoned (see abortAbandonedUploads). */
const abandonedAfterMs = 3600_000;
const abandonedCheckMs = 600_000;

/**
 * Recordings that several proxies share (an S3 bucket with the spool in the cluster's database,
 * docs/high-availability.md). No proxy seals what it finds open at start, as another live proxy
 * may be writing it; instead each one periodically `recover`s the recordings of proxies that are
 * gone: adopts their spooled blobs, seals their open recordings, and uploads them.
 */
export class SharedRecordingStore extends BlobRecordingStore {
  private lastAbortCheck = 0;

  constructor(
    private readonly spooled: SpooledBlobStore,
    formats: readonly CrashSealer[] = [],
    /** Told the bytes of each write, for the recording bytes metric. */
    onWritten?: (bytes: number) => void,
  ) {
    super(onWritten ? meteredBlobStore(spooled, onWritten) : spooled, formats);
  }

  /** Prepares the bucket and the spool; seals nothing (see the class comment). */
  override async init(): Promise<{ sealed: string[] }> {
    await this.blobs.init();
    return { sealed: [] };
  }

  async recover(isLive: (proxyId: string) => boolean): Promise<string[]> {
    const adopted = await this.spooled.adopt(isLive);
    const sealed = await this.sealOpen(adopted);
    await this.spooled.uploadPending();
    await this.abortAbandonedUploads();
    return sealed;
  }

  /**
   * Multipart uploads a dead proxy left half done hold their parts in the bucket until aborted.
   * Their data is safe in the spool (rows go only once an upload completes) and is uploaded again
   * by its adopter; what is left is garbage. An upload takes minutes at most, so one started over
   * an hour ago is abandoned. Checked at most every ten minutes.
   */
  private async abortAbandonedUploads(): Promise<void> {
    const now = Date.now();
    if (now - this.lastAbortCheck < abandonedCheckMs) return;
    this.lastAbortCheck = now;
    await this.spooled.target.abortStaleUploads?.(new Date(now - abandonedAfterMs));
  }

  /** This proxy's recordings waiting for their upload, as of the last pass. */
  override uploadsWaiting(): number {
    return this.spooled.waiting;
  }

  writableProblem(): Promise<string | undefined> {
    return this.spooled.writableProblem();
  }

  override close(): Promise<void> {
    return this.spooled.close();
  }
}
