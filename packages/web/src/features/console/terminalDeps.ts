import { apiPaths } from '@postern/contracts';
import { api } from '../../api';
import { pageOrigin, socketBearerToken } from '../../api/websocket';
import { loadXtermEngine, type TerminalEngineLoader } from './terminalEngine';
import { createTerminalSocket, microtaskScheduler } from './tty';
import type { Scheduler, SocketOrigin, WebSocketLike } from './tty';

/**
 * The outside world a terminal talks to, whichever socket it speaks to (a server's shell, a
 * database's SQL console); tests replace it with fakes.
 */
export interface TerminalDeps {
  loadEngine: TerminalEngineLoader;
  /** The socket implementation; the browser's WebSocket when left out. */
  createSocket?: (url: string) => WebSocketLike;
  /** The bearer token for the socket's first frame. */
  token: () => string | undefined;
  origin: SocketOrigin;
  /** When batched output is written (an animation frame in the browser). */
  schedule: Scheduler;
  clipboard: Pick<Clipboard, 'readText' | 'writeText'> | undefined;
  /** Gives up a session being resumed, as its tab closes (docs/protocol.md §6.1). */
  leave?: (session: { sid: string; key: string }) => void;
}

/** `POST terminal/sessions/{sid}/leave`, sent even as the page goes; nobody reads the answer. */
function leaveSession({ sid, key }: { sid: string; key: string }): void {
  const options = { keepalive: true, skipSessionCheck: true };
  api.post(apiPaths.terminalLeave(sid), { key }, options).catch(() => undefined);
}

/** The browser's: xterm on demand, sockets in a worker, the stored bearer, the page's origin. */
export function browserTerminalDeps(): TerminalDeps {
  return {
    loadEngine: loadXtermEngine,
    token: () => socketBearerToken(),
    origin: pageOrigin(),
    schedule: microtaskScheduler,
    createSocket: createTerminalSocket,
    clipboard: typeof navigator !== 'undefined' ? navigator.clipboard : undefined,
    leave: leaveSession,
  };
}
