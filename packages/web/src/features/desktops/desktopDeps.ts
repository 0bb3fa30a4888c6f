import { requestSessionMfaChallenge } from '../../api/sessionMfa';
import { pageOrigin, socketBearerToken } from '../../api/websocket';
import type { DesktopDeps, DesktopSocket, StartRfb } from './desktopConnection';

/**
 * noVNC, loaded when a session starts (its own chunk: no other page pays for it). Its package
 * exports one entry, `core/rfb.js` (an ES module; 1.7.0 has no `lib/` build any more), imported
 * by the package's name. The channel is the browser's WebSocket from `browserDesktopDeps`, open
 * and authenticated: noVNC attaches to an open socket as it is (`Websock.attach`).
 */
export async function loadNoVnc(): Promise<StartRfb> {
  const { default: RFB } = await import('@novnc/novnc');
  return (target: HTMLElement, socket: DesktopSocket) =>
    new RFB(target, socket as unknown as WebSocket, { shared: true });
}

/** The browser's: a WebSocket on the page, noVNC on demand, the stored bearer, the clipboard. */
export function browserDesktopDeps(): DesktopDeps {
  return {
    createSocket: (url) => new WebSocket(url),
    loadRfb: loadNoVnc,
    token: () => socketBearerToken(),
    origin: pageOrigin(),
    clipboard: typeof navigator !== 'undefined' ? navigator.clipboard : undefined,
    events: window,
    mfaChallenge: requestSessionMfaChallenge,
  };
}
