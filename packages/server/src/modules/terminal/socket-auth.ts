import {
  desktopAuthFrameSchema,
  type CreateSessionResponse,
  type SessionMfaResponse,
} from '@postern/contracts';
import type { RawData, WebSocket } from 'ws';
import type { Identity } from '../../http/request-identity.js';

/** Who proved themselves on a socket's first frame, and their answer to an MFA challenge. */
export interface SocketCaller {
  identity: Identity;
  mfaResponse?: SessionMfaResponse;
}

/**
 * The in-band proof of a socket that carries something else than terminal frames after it (a
 * desktop's RFB): the first frame is text `{"token": "<bearer>", "mfa_response"?: …}`, proven
 * with the upgrade's cookie. Resolves with who it is, or undefined once it answered the refusal
 * and closed.
 */
export function authenticateFirstFrame(
  socket: WebSocket,
  authenticate: (bearer: string) => Promise<Identity | null>,
  timeoutMs = 10_000,
): Promise<SocketCaller | undefined> {
  return new Promise((resolve) => {
    const refuse = (message: string) => {
      answerSession(socket, 'error', message);
      socket.close(1008, message.slice(0, 120));
      resolve(undefined);
    };
    const timer = setTimeout(() => {
      socket.off('message', onFirst);
      refuse('authentication timed out');
    }, timeoutMs);
    const onFirst = (data: RawData, isBinary: boolean) => {
      clearTimeout(timer);
      const text = isBinary ? '' : Buffer.from(data as Buffer).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const auth = desktopAuthFrameSchema.safeParse(parsed);
      if (!auth.success) return refuse('not authenticated');
      const { token, mfa_response: mfaResponse } = auth.data;
      authenticate(token).then(
        (identity) =>
          identity
            ? resolve({ identity, ...(mfaResponse ? { mfaResponse } : {}) })
            : refuse('not authenticated'),
        () => refuse('not authenticated'),
      );
    };
    socket.once('message', onFirst);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/** The answer to the first frame (`create_session_response`), a text frame. */
export function answerSession(
  socket: WebSocket,
  status: 'ok' | 'error',
  message?: string,
  code?: CreateSessionResponse['code'],
): void {
  const response: CreateSessionResponse = {
    type: 'create_session_response',
    status,
    ...(message ? { message } : {}),
    ...(code ? { code } : {}),
  };
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(response));
}
