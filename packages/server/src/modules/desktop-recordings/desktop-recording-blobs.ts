import type { BlobStore } from '../../blobs/blob-store.js';
import type { RecordingIntegrity } from '../recordings/recording-integrity.js';
import { isRecordingSid } from '../recordings/recording-store.js';

/**
 * How one desktop recording lies in the blob store that holds the terminal recordings (the
 * same `<sid>.<part>` names, with parts of its own, so neither format mistakes the other's):
 *
 * - `<sid>.desktop.events`: the records (record-format.ts), appended while the session runs;
 * - `<sid>.desktop.chunks.jsonl`: one line per write, the terminal recordings' chunk list
 *   (`recording-integrity.ts`: place, time and chain hash), appended with it;
 * - `<sid>.desktop.index.json`: the seal, put whole at the end (or by the crash seal).
 */
export type DesktopRecordingPart = 'desktop.events' | 'desktop.chunks.jsonl' | 'desktop.index.json';

export const desktopBlobName = (sid: string, part: DesktopRecordingPart) => `${sid}.${part}`;

/** A whole screen: where a seek starts. `at` is the byte where its chunk starts. */
export interface DesktopKeyframe {
  ms: number;
  at: number;
  width: number;
  height: number;
}

/** `<sid>.desktop.index.json`. */
export interface DesktopRecordingIndex {
  version: 1;
  format: 'postern-desktop';
  sid: string;
  sealed: true;
  /** The proxy stopped before the session ended: the events end early. */
  incomplete: boolean;
  durationMs: number;
  /** Who may read it under a `participants` rule (the access preset). */
  participants: string[];
  desktopName: string;
  /** The screen size at the start. */
  width: number;
  height: number;
  /** Bytes of `<sid>.desktop.events`. */
  size: number;
  keyframes: DesktopKeyframe[];
  /** The chunk chain's length and head; the chain covers every byte of the events blob. */
  integrity: Omit<RecordingIntegrity, 'keyframes'>;
}

export async function readDesktopIndex(
  blobs: BlobStore,
  sid: string,
): Promise<DesktopRecordingIndex | undefined> {
  if (!isRecordingSid(sid)) return undefined;
  const text = await blobs.get(desktopBlobName(sid, 'desktop.index.json')).catch(() => undefined);
  if (!text) return undefined;
  try {
    const index = JSON.parse(text.toString('utf8')) as DesktopRecordingIndex;
    return index.format === 'postern-desktop' ? index : undefined;
  } catch {
    return undefined;
  }
}

/** The seal, put whole: a reader sees no index or a complete one. */
export function writeDesktopIndex(blobs: BlobStore, index: DesktopRecordingIndex): Promise<void> {
  return blobs.put(desktopBlobName(index.sid, 'desktop.index.json'), JSON.stringify(index));
}
