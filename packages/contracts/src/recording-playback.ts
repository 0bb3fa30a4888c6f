import { z } from 'zod';

/**
 * The player's calls (docs/recordings.md, "Playback"). The player never downloads a recording
 * whole: it reads the info, then chunks of events. A seek asks for the chunk at a time and gets
 * the nearest earlier keyframe's screen with the events that follow it; playing on asks for the
 * chunk at the `next` offset the previous chunk gave.
 */

/**
 * A moment worth finding on the player's timeline: someone joined the session, or a typist
 * resized the terminal. `t` is seconds since the start, like cast events.
 */
export const recordingMarkSchema = z.object({
  t: z.number().nonnegative(),
  kind: z.enum(['join', 'resize']),
  /** `alice joined (observer)`, `120x40`. */
  label: z.string(),
});
export type RecordingMark = z.infer<typeof recordingMarkSchema>;

/** `GET sites/{clusterId}/sessions/{sid}/recording/info` */
export const recordingInfoSchema = z.object({
  sid: z.string(),
  durationMs: z.number().nonnegative(),
  /** The proxy stopped before the session ended; the recording ends early. */
  incomplete: z.boolean(),
  /** The terminal size the session started with. */
  cols: z.number().int().positive(),
  rows: z.number().int().positive(),
  title: z.string(),
  /** Bytes of the uncompressed cast (what a `.cast` download weighs). */
  castBytes: z.number().int().nonnegative(),
  /** Seconds from the start at which a keyframe (a whole screen) is stored. */
  keyframeTimes: z.array(z.number().nonnegative()),
  /** Joins and resizes, in time order, for the timeline's markers. */
  marks: z.array(recordingMarkSchema),
});
export type RecordingInfo = z.infer<typeof recordingInfoSchema>;

/**
 * One asciicast v2 event: seconds since the start, `"o"` output, `"r"` a resize `"WxH"` or `"m"` a
 * marker (Postern marks joins), and the data. Players draw `o` and `r` and skip other kinds.
 */
export const castEventSchema = z.tuple([z.number().nonnegative(), z.string(), z.string()]);
export type CastEvent = z.infer<typeof castEventSchema>;

/** `GET .../recording/events?at=<seconds>` (seek) or `?offset=<bytes>` (continue). */
export const recordingEventsQuerySchema = z
  .object({
    at: z.coerce.number().nonnegative().optional(),
    offset: z.coerce.number().int().nonnegative().optional(),
    /** Uncompressed bytes of events wanted; the server caps it (recordingChunkMaxBytes). */
    bytes: z.coerce.number().int().positive().optional(),
  })
  .refine((q) => (q.at === undefined) !== (q.offset === undefined), {
    message: 'give either at (seconds) or offset (bytes)',
  });
export type RecordingEventsQuery = z.infer<typeof recordingEventsQuerySchema>;

export const recordingChunkDefaultBytes = 256 * 1024;
export const recordingChunkMaxBytes = 1024 * 1024;

export const recordingChunkSchema = z.object({
  /**
   * Only on a seek: the screen at `t` as `@xterm/headless` serialized it. Draw it on a reset
   * terminal of `cols`×`rows`, then play `events`. Absent when the seek lands before the first
   * keyframe: then `events` start at the beginning of the session.
   */
  screen: z
    .object({
      t: z.number().nonnegative(),
      cols: z.number().int().positive(),
      rows: z.number().int().positive(),
      data: z.string(),
    })
    .optional(),
  /** In time order. A chunk ends on a whole event; it holds at least one event unless at the end. */
  events: z.array(castEventSchema),
  /** The offset to ask for next, or null when the recording has no more events. */
  next: z.number().int().nonnegative().nullable(),
  /**
   * The recording is damaged (altered or cut) right after these events: `next` is null, and
   * nothing after `t` (seconds) can be played. `chunk` is the first bad chunk of the stored cast.
   */
  damaged: z
    .object({
      t: z.number().nonnegative(),
      chunk: z.number().int().nonnegative().optional(),
      message: z.string(),
    })
    .optional(),
});
export type RecordingChunk = z.infer<typeof recordingChunkSchema>;
