import { constants, gunzipSync, gzipSync } from 'node:zlib';
import type { RecordingMark } from '@postern/contracts';
import type { SeekPoint } from './recording-store.js';

/**
 * Recovers a cast a crash cut short: decompresses what is readable (every whole gzip member, and
 * with a sync flush what decodes of the cut one) and keeps the whole JSON lines. They are
 * recompressed as one gzip member per keyframe, so a player still seeks from any keyframe. The
 * last event's time is the recording's duration. The timeline's marks come from the kept resize
 * (`r`) and marker (`m`: Postern writes one only for a join) events.
 */
export function sealCast(
  gzip: Buffer,
  keyframeOffsets: number[] = [],
): {
  gzip: Buffer;
  castBytes: number;
  lastTime: number;
  seekPoints: SeekPoint[];
  marks: RecordingMark[];
} {
  let text: Buffer;
  try {
    text = gunzipSync(gzip, { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    // Corrupt rather than truncated: nothing after the damage can be trusted.
    text = Buffer.alloc(0);
  }
  let keep = 0;
  let lastTime = 0;
  const marks: RecordingMark[] = [];
  const lineStarts = new Map<number, number>([[0, 0]]);
  for (let end = text.indexOf(10); end >= 0; end = text.indexOf(10, keep)) {
    let line: unknown;
    try {
      line = JSON.parse(text.subarray(keep, end).toString('utf8'));
    } catch {
      break;
    }
    if (Array.isArray(line) && typeof line[0] === 'number') {
      lastTime = line[0];
      const kind = line[1] === 'r' ? 'resize' : line[1] === 'm' ? 'join' : undefined;
      if (kind && typeof line[2] === 'string') marks.push({ t: lastTime, kind, label: line[2] });
    }
    keep = end + 1;
    lineStarts.set(keep, lastTime);
  }
  const kept = text.subarray(0, keep);
  // Member boundaries: the start, and every keyframe offset that falls on a kept line start.
  const starts = [...new Set([0, ...keyframeOffsets])]
    .filter((offset) => lineStarts.has(offset) && offset < keep)
    .sort((a, b) => a - b);
  const members: Buffer[] = [];
  const seekPoints: SeekPoint[] = [];
  let gz = 0;
  starts.forEach((offset, i) => {
    const member = gzipSync(kept.subarray(offset, starts[i + 1] ?? keep));
    seekPoints.push({ t: lineStarts.get(offset) ?? 0, offset, gz });
    members.push(member);
    gz += member.length;
  });
  if (members.length === 0) members.push(gzipSync(kept));
  return { gzip: Buffer.concat(members), castBytes: kept.length, lastTime, seekPoints, marks };
}
