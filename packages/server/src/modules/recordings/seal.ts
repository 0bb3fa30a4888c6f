import { constants, gunzipSync, gzipSync } from 'node:zlib';

/**
 * Recovers a cast a crash cut short: decompresses what is readable (every whole gzip member, and
 * with a sync flush what decodes of the cut one), keeps the whole JSON lines, and recompresses
 * them as one gzip member. The last event's time is the recording's duration.
 */
export function sealCast(gzip: Buffer): { gzip: Buffer; castBytes: number; lastTime: number } {
  let text: Buffer;
  try {
    text = gunzipSync(gzip, { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    // Corrupt rather than truncated: nothing after the damage can be trusted.
    text = Buffer.alloc(0);
  }
  let keep = 0;
  let lastTime = 0;
  for (let end = text.indexOf(10); end >= 0; end = text.indexOf(10, keep)) {
    let line: unknown;
    try {
      line = JSON.parse(text.subarray(keep, end).toString('utf8'));
    } catch {
      break;
    }
    if (Array.isArray(line) && typeof line[0] === 'number') lastTime = line[0];
    keep = end + 1;
  }
  const kept = text.subarray(0, keep);
  return { gzip: gzipSync(kept), castBytes: kept.length, lastTime };
}
