import type { BlobStore } from '../../blobs/blob-store.js';
import type { RecordingIndex } from './recording-store.js';

/**
 * How one terminal recording lies in a blob store: one blob per part, named `<sid>.<part>`
 * (the file names of the recordings directory from before blob stores existed).
 */
export type RecordingPart = 'cast.gz' | 'keyframes.jsonl' | 'chunks.jsonl' | 'index.json';

export const recordingBlobName = (sid: string, part: RecordingPart) => `${sid}.${part}`;

/** The seal, put whole: a reader sees no index or a complete one. */
export function writeIndex(blobs: BlobStore, index: RecordingIndex): Promise<void> {
  return blobs.put(recordingBlobName(index.sid, 'index.json'), JSON.stringify(index));
}
