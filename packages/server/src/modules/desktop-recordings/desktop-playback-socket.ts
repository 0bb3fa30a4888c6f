import {
  desktopPlaybackActionSchema,
  terminalAuthFrameSchema,
  type CreateSessionResponse,
  type DesktopPlaybackAction,
} from '@postern/contracts';
import type { RawData, WebSocket } from 'ws';
import type { BlobStore } from '../../blobs/blob-store.js';
import { ApiError } from '../../errors.js';
import { webSessionMarks, type Identity } from '../../http/request-identity.js';
import { lockMessage, type LockView } from '../../access-control/locks/lock-watcher.js';
import { keepAlive } from '../../websocket/keep-alive.js';
import { closeOnProtocolError } from '../../websocket/protocol-errors.js';
import type { DesktopRecordingIndex } from './desktop-recording-blobs.js';
import { DesktopPlayer } from './desktop-player.js';
import { toBytes } from '../../websocket/frames.js';

export interface DesktopPlaybackSocketOptions {
  /** Proves the bearer of the first frame together with the upgrade request's cookie. */
  authenticate: (bearer: string) => Promise<Identity | null>;
  locks: LockView;
  /** The recording's seal, when this caller may read it (audited); throws ApiError otherwise. */
  open: (identity: Identity) => Promise<DesktopRecordingIndex>;
  blobs: BlobStore;
  pingIntervalMs: number;
  authTimeoutMs?: number;
  highWaterBytes?: number;
  log: (error: unknown, message: string) => void;
}

/**
 * Close codes of a refused playback socket: the HTTP status the same refusal gets, plus 4000
 * (the range RFC 6455 leaves to applications), after a `create_session_response` that says why.
 */
export const playbackRefusal = { notAuthenticated: 4401, accessDenied: 4403, notFound: 4404 };

/** Actions a client may send before its playback has started; later ones are dropped. */
const earlyActionLimit = 16;

/**
 * One desktop playback socket (docs/desktops.md, "Recordings"): the first frame carries the
 * bearer, as on the terminal sockets; once the caller is proven, may read recordings
 * (`recordedSessions` read, no lock) and may read this one, the answer is
 * `create_session_response` ok and the recording plays (desktop-player.ts), driven by the
 * client's `{action}` frames.
 */
export function serveDesktopPlayback(socket: WebSocket, options: DesktopPlaybackSocketOptions) {
  let stage: 'auth' | 'starting' | 'playing' | 'closed' = 'auth';
  let player: DesktopPlayer | undefined;
  const early: DesktopPlaybackAction[] = [];
  const refuse = (code: number, message: string) => {
    answer(socket, { type: 'create_session_response', status: 'error', message });
    stage = 'closed';
    socket.close(code, message.slice(0, 120));
  };
  const authTimer = setTimeout(
    () => refuse(playbackRefusal.notAuthenticated, 'authentication timed out'),
    options.authTimeoutMs ?? 10_000,
  );
  const alive = keepAlive(socket, options.pingIntervalMs);

  socket.on('message', (data: RawData, isBinary: boolean) => {
    if (isBinary) return;
    const text = Buffer.from(toBytes(data)).toString('utf8');
    if (stage === 'auth') {
      clearTimeout(authTimer);
      stage = 'starting';
      void begin(text).catch((error: unknown) => {
        if (!(error instanceof ApiError)) options.log(error, 'desktop playback failed to start');
        const code = error instanceof ApiError ? 4000 + error.statusCode : 1011;
        refuse(code, error instanceof ApiError ? error.message : 'internal error');
      });
      return;
    }
    const action = desktopPlaybackActionSchema.safeParse(safeJson(text));
    if (!action.success) return send(socket, { message: 'error', errorText: 'unknown action' });
    if (player) player.act(action.data);
    else if (stage === 'starting' && early.length < earlyActionLimit) early.push(action.data);
  });

  socket.on('close', () => {
    clearTimeout(authTimer);
    alive.stop();
    stage = 'closed';
    player?.close();
  });
  closeOnProtocolError(socket);

  async function begin(firstFrame: string): Promise<void> {
    const auth = terminalAuthFrameSchema.safeParse(safeJson(firstFrame));
    const identity = auth.success ? await options.authenticate(auth.data.token) : null;
    if (!identity) return refuse(playbackRefusal.notAuthenticated, 'not authenticated');
    const { user, roles } = identity;
    const lock = options.locks.lockFor({ user, roles, ...webSessionMarks(identity) });
    if (lock) return refuse(playbackRefusal.accessDenied, `locked: ${lockMessage(lock)}`);
    if (!identity.acl.recordedSessions.read) {
      const message = 'access denied: read on recordedSessions is not allowed';
      return refuse(playbackRefusal.accessDenied, message);
    }
    const index = await options.open(identity);
    if (stage === 'closed') return;
    answer(socket, { type: 'create_session_response', status: 'ok' });
    stage = 'playing';
    player = new DesktopPlayer({
      blobs: options.blobs,
      index,
      highWaterBytes: options.highWaterBytes,
      sink: { send: (frame) => send(socket, frame), buffered: () => socket.bufferedAmount },
    });
    player.start();
    for (const action of early.splice(0)) player.act(action);
  }
}

function send(socket: WebSocket, frame: object): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
}

function answer(socket: WebSocket, response: CreateSessionResponse): void {
  send(socket, response);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
