import type { RecordingsClient } from './recordings-client.js';

export interface PlayOptions {
  /** 2 plays twice as fast. */
  speed: number;
  /** No pause longer than this many seconds (the rest of a long idle is skipped). */
  maxIdleSeconds?: number;
  /** `text`: the output at its pace, for a terminal; `cast`: asciicast v2 at once. */
  format: 'text' | 'cast';
}

export interface PlayTarget {
  write(data: string): void;
  /** Resolves after `ms` (tests pass a clock of their own). */
  sleep(ms: number): Promise<void>;
  now(): number;
}

/**
 * Plays a recording into `out` chunk by chunk, as the console's player reads it (never the whole
 * file at once). `text` writes each output event when its time comes, measured from the start
 * so that slow writes do not add up; resizes and marks are not drawn. Returns why the recording
 * ends early when it is damaged (played up to the damage), or undefined.
 */
export async function playRecording(
  client: RecordingsClient,
  sid: string,
  options: PlayOptions,
  out: PlayTarget,
): Promise<string | undefined> {
  const info = await client.info(sid);
  if (options.format === 'cast') {
    const header = { version: 2, width: info.cols, height: info.rows, title: info.title };
    out.write(`${JSON.stringify(header)}\n`);
  }
  const startedAt = out.now();
  const maxIdle = options.maxIdleSeconds ?? Infinity;
  // Seconds of the recording played, less the idle skipped: where the wall clock should be.
  let played = 0;
  let last = 0;
  let offset: number | null = 0;
  while (offset !== null) {
    const chunk = await client.events(sid, offset);
    for (const [t, kind, data] of chunk.events) {
      if (options.format === 'cast') {
        out.write(`${JSON.stringify([t, kind, data])}\n`);
        continue;
      }
      played += Math.min(Math.max(0, t - last), maxIdle);
      last = t;
      if (kind !== 'o') continue;
      const wait = startedAt + (played * 1000) / options.speed - out.now();
      if (wait > 0) await out.sleep(wait);
      out.write(data);
    }
    if (chunk.damaged)
      return `the recording is damaged after ${chunk.damaged.t}s: ${chunk.damaged.message}`;
    offset = chunk.next;
  }
  return undefined;
}
