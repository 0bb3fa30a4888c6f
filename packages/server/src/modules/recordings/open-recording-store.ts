import path from 'node:path';
import { S3BlobStore } from '../../blobs/s3/s3-blob-store.js';
import type { BlobSpool } from '../../blobs/spool/blob-spool.js';
import { PostgresBlobSpool } from '../../blobs/spool/blob-spool.postgres.js';
import { SqliteBlobSpool } from '../../blobs/spool/blob-spool.sqlite.js';
import { SpooledBlobStore } from '../../blobs/spool/spooled-blob-store.js';
import type { Config } from '../../config/config.js';
import type { BlobRecordingStore } from './recording-store.js';
import { DirRecordingStore, type CrashSealer } from './recording-store.js';
import { SharedRecordingStore } from './shared-recording-store.js';

export interface RecordingStoreOptions {
  /** This proxy's id: what it spools is its own until it is gone. */
  owner: string;
  /** The formats besides terminal recordings (desktops), whose open recordings are sealed too. */
  formats?: readonly CrashSealer[];
  /** Told the bytes of each write (the recording bytes metric). */
  onWritten?: (bytes: number) => void;
  /** Told of uploads that failed and will be tried again. */
  onError?: (error: unknown, what: string) => void;
  /** Told each upload's lag: seconds from the recording part's end to its upload. */
  onUploaded?: (lagSeconds: number) => void;
}

/**
 * The recordings of `config`: a directory (one proxy), or an S3-compatible bucket with the spool
 * in the cluster's database: PostgreSQL when the cluster state is there, else a SQLite file in
 * the data dir (one proxy whose recordings live in a bucket).
 */
export function openRecordingStore(
  config: Pick<Config, 'recordings' | 'storage' | 'dataDir'>,
  options: RecordingStoreOptions,
): BlobRecordingStore {
  const { s3 } = config.recordings;
  if (!s3) return new DirRecordingStore(config.recordings.dir, options.formats, options.onWritten);
  const spool: BlobSpool =
    config.storage.type === 'postgres'
      ? new PostgresBlobSpool({ url: config.storage.url, schema: config.storage.schema })
      : new SqliteBlobSpool(path.join(config.dataDir, 'recording-spool.db'));
  const spooled = new SpooledBlobStore(new S3BlobStore(s3), spool, {
    owner: options.owner,
    flushIntervalMs: config.recordings.spoolFlushIntervalMs,
    onError: options.onError,
    onUploaded: options.onUploaded,
  });
  return new SharedRecordingStore(spooled, options.formats, options.onWritten);
}
