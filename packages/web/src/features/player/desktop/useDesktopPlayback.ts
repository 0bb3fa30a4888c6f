import { useEffect, useRef, useState } from 'react';
import { socketBearerToken } from '../../../api/websocket';
import type { WebSocketLike } from '../../console/tty/TtyClient';
import type { PlaybackClock } from '../playbackTypes';
import { browserClock } from '../usePlayback';
import { useEngineState } from '../useEngineState';
import { openCanvasSurface } from './canvasSurface';
import { DesktopPlaybackEngine } from './DesktopPlaybackEngine';
import { openDesktopPlaybackSocket } from './desktopSocket';
import { inflate } from './inflate';
import { RectDrawer } from './rectDrawer';

interface Options {
  clusterId: string;
  sid: string;
  durationMs: number;
  /** Tests give a fake socket and clock. */
  openSocket?: (clusterId: string, sid: string) => WebSocketLike;
  clock?: PlaybackClock;
}

/**
 * A DesktopPlaybackEngine on the recording's playback socket, drawing on the canvas in
 * `canvasRef`; its state as React state. It starts playing once the canvas is there.
 */
export function useDesktopPlayback({
  clusterId,
  sid,
  durationMs,
  openSocket = openDesktopPlaybackSocket,
  clock = browserClock,
}: Options) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [engine, setEngine] = useState<DesktopPlaybackEngine | null>(null);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const drawer = new RectDrawer(openCanvasSurface(canvas), inflate);
    const created = new DesktopPlaybackEngine(
      { durationMs },
      {
        openSocket: () => openSocket(clusterId, sid),
        token: () => socketBearerToken(),
        draw: (event) => drawer.draw(event),
        clock,
      },
    );
    created.start();
    setEngine(created);
    return () => {
      created.dispose();
      drawer.dispose();
    };
  }, [clusterId, sid, durationMs, openSocket, clock]);

  return { ...useEngineState(engine, durationMs), canvasRef };
}
