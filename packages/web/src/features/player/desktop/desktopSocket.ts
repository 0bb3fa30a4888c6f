import { apiPaths } from '@postern/contracts';
import { pageOrigin } from '../../../api/websocket';
import { socketScheme } from '../../console/tty/terminalUrl';
import type { WebSocketLike } from '../../console/tty/TtyClient';

/** The playback socket of one desktop recording, on the page's own origin. */
export function openDesktopPlaybackSocket(clusterId: string, sid: string): WebSocketLike {
  const origin = pageOrigin();
  const url = `${socketScheme(origin.protocol)}://${origin.host}${apiPaths.desktopPlayback(clusterId, sid)}`;
  return new WebSocket(url);
}
