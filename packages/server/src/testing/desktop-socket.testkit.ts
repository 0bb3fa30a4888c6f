import { apiPaths } from '@postern/contracts';
import { Duplex, PassThrough, Writable } from 'node:stream';
import WebSocket from 'ws';

export interface OpenedDesktop {
  /** The server's answer to the first frame (`create_session_response`). */
  answer: { type: string; status: string; message?: string; code?: string };
  socket: WebSocket;
  /** The RFB bytes after the answer, as a stream (caught from the first frame on). */
  rfb: Duplex;
  closed: Promise<{ code: number; reason: string }>;
}

/**
 * Opens the desktop connect socket as the console does: the session cookie on the upgrade, the
 * bearer in the first text frame (`token` overrides it), then RFB as binary frames.
 */
export async function openDesktopSocket(options: {
  /** `ws://127.0.0.1:<port>` of a listening test app. */
  wsBase: string;
  headers: Record<string, string>;
  name: string;
  username: string;
  width?: number;
  height?: number;
  token?: string;
  /** The answer to a per-session MFA challenge, sent with the bearer. */
  mfaResponse?: object;
  /** A trusted leaf's desktop, through the root (`-current-` otherwise). */
  clusterId?: string;
}): Promise<OpenedDesktop> {
  const query = new URLSearchParams({
    username: options.username,
    width: String(options.width ?? 320),
    height: String(options.height ?? 200),
  });
  const path = apiPaths.desktopConnect(options.clusterId ?? '-current-', options.name);
  const socket = new WebSocket(`${options.wsBase}${path}?${query.toString()}`, {
    headers: { cookie: options.headers.cookie ?? '' },
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  // RFB can follow the answer in the same read: binary frames are kept from the start.
  const incoming = new PassThrough();
  socket.on('close', () => incoming.end());
  const rfb = Duplex.from({
    readable: incoming,
    writable: new Writable({
      write: (chunk: Buffer, _encoding, done) => socket.send(chunk, done),
    }),
  });
  const token = options.token ?? options.headers.authorization?.replace(/^Bearer /, '') ?? '';
  const answer = await new Promise<OpenedDesktop['answer']>((resolve, reject) => {
    socket.once('error', reject);
    const mfa = options.mfaResponse ? { mfa_response: options.mfaResponse } : {};
    socket.once('open', () => socket.send(JSON.stringify({ token, ...mfa })));
    socket.on('message', (data: Buffer, isBinary) => {
      if (isBinary) incoming.write(data);
      else resolve(JSON.parse(data.toString()));
    });
  });
  return { answer, socket, rfb, closed };
}
