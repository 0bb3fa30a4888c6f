import { z } from 'zod';
import type { DesktopRecordingEvent } from './desktops.js';

/**
 * Playing a desktop recording (docs/desktops.md, "Recordings"; reference §3 "Desktop playback"):
 * the info (`GET …/desktopplayback/{sid}`), then the playback WebSocket
 * (`…/desktopplayback/{sid}/ws`). After the in-band bearer (the terminal sockets' first frame and
 * answer), the server sends JSON frames: `{message: <event>}` at the recording's pace,
 * `{message: "end"}` once the last event is out, `{message: "error", errorText}`; the player
 * sends `{action: …}` frames.
 */

/** The speeds the server plays at: asked for outside these, it clamps. */
export const desktopPlaybackMinSpeed = 0.25;
export const desktopPlaybackMaxSpeed = 16;

const ms = z.number().nonnegative();
const size = z.number().int().positive().max(65_535);
const coordinate = z.number().int().nonnegative().max(65_535);

export const desktopRecordingEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('screen'), ms, width: size, height: size }),
  z.object({
    type: z.literal('rect'),
    ms,
    x: coordinate,
    y: coordinate,
    width: size,
    height: size,
    rgba: z.string(),
    keyframe: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('clipboard'),
    ms,
    direction: z.enum(['in', 'out']),
    bytes: z.number().int().nonnegative(),
  }),
  z.object({ type: z.literal('end'), ms }),
]) satisfies z.ZodType<DesktopRecordingEvent>;

/** What the server sends on the playback socket after the answer to the bearer. */
export const desktopPlaybackFrameSchema = z.union([
  z.object({ message: desktopRecordingEventSchema }),
  z.object({ message: z.literal('end') }),
  z.object({ message: z.literal('error'), errorText: z.string() }),
]);
export type DesktopPlaybackFrame = z.infer<typeof desktopPlaybackFrameSchema>;

/**
 * What the player sends: `play/pause` toggles; `speed` is clamped to 0.25–16; `seek` (ms from
 * the start) is answered by the last keyframe at or before `pos` and every event from it up to
 * `pos` at once, then the recording plays on from `pos`.
 */
export const desktopPlaybackActionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('play/pause') }),
  z.object({ action: z.literal('speed'), speed: z.number().positive() }),
  z.object({ action: z.literal('seek'), pos: z.number().nonnegative() }),
]);
export type DesktopPlaybackAction = z.infer<typeof desktopPlaybackActionSchema>;

/** `GET sites/{clusterId}/desktopplayback/{sid}`: what the player shows before the first event. */
export const desktopRecordingInfoSchema = z.object({
  sid: z.string(),
  durationMs: ms,
  /** The proxy stopped before the session ended; the recording ends early. */
  incomplete: z.boolean(),
  /** The screen size the session started with. */
  width: size,
  height: size,
  /** Bytes stored for the recording's events. */
  size: z.number().int().nonnegative(),
  /** When a keyframe (a whole screen, where a seek starts) is stored, in ms from the start. */
  keyframeTimes: z.array(ms),
  /** The desktop's name, when the recorder was told it. */
  desktopName: z.string(),
});
export type DesktopRecordingInfo = z.infer<typeof desktopRecordingInfoSchema>;
