import { describe, expect, it } from 'vitest';
import { apiPaths } from './api-paths.js';
import {
  desktopPlaybackActionSchema,
  desktopPlaybackFrameSchema,
  desktopRecordingEventSchema,
} from './desktop-playback.js';

describe('desktop playback contract', () => {
  it('names the info beside the socket, each segment encoded', () => {
    expect(apiPaths.desktopRecordingInfo('root', 'a/b')).toBe(
      '/v1/webapi/sites/root/desktopplayback/a%2Fb',
    );
    expect(apiPaths.desktopPlayback('root', 'sid-1')).toBe(
      '/v1/webapi/sites/root/desktopplayback/sid-1/ws',
    );
  });

  it('reads every event kind, the end and errors, and nothing else', () => {
    const events = [
      { type: 'screen', ms: 0, width: 1280, height: 800 },
      { type: 'rect', ms: 5, x: 0, y: 0, width: 1280, height: 800, rgba: 'eJw=', keyframe: true },
      { type: 'clipboard', ms: 9, direction: 'out', bytes: 12 },
      { type: 'end', ms: 10 },
    ];
    for (const event of events) expect(desktopRecordingEventSchema.parse(event)).toEqual(event);
    expect(desktopPlaybackFrameSchema.safeParse({ message: 'end' }).success).toBe(true);
    const error = { message: 'error', errorText: 'damaged' };
    expect(desktopPlaybackFrameSchema.parse(error)).toEqual(error);
    for (const bad of [
      { message: 'error' },
      { message: { type: 'rect', ms: 1 } },
      { message: { type: 'screen', ms: 0, width: 0, height: 800 } },
      { message: { type: 'clipboard', ms: 0, direction: 'sideways', bytes: 1 } },
    ]) {
      expect(desktopPlaybackFrameSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('takes the three actions the player sends', () => {
    expect(desktopPlaybackActionSchema.parse({ action: 'play/pause' })).toEqual({
      action: 'play/pause',
    });
    expect(desktopPlaybackActionSchema.parse({ action: 'speed', speed: 0.25 }).action).toBe(
      'speed',
    );
    expect(desktopPlaybackActionSchema.parse({ action: 'seek', pos: 1500 })).toEqual({
      action: 'seek',
      pos: 1500,
    });
    expect(desktopPlaybackActionSchema.safeParse({ action: 'seek', pos: -1 }).success).toBe(false);
    expect(desktopPlaybackActionSchema.safeParse({ action: 'rewind' }).success).toBe(false);
  });
});
