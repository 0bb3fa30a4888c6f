import {
  apiPaths,
  decodeEnvelope,
  decodeEnvelopeBytes,
  encodeEnvelope,
  terminalMessageTypes as T,
  type TerminalEnvelope,
  type TerminalMessageType,
  resumeKeySchema,
  type ResumeKey,
  type TerminalRequest,
} from '@postern/contracts';
import WebSocket from 'ws';

export interface TerminalClient {
  /** The create_session_response the server sent after the auth frame. */
  response: { status: string; message?: string };
  frames: TerminalEnvelope[];
  /** All `r` output so far, as text. */
  output(): string;
  send(type: TerminalMessageType, payload?: string): void;
  type(text: string): void;
  /** Acknowledge every output byte received so far (as the browser does once rendered). */
  ackAll(): void;
  waitFor(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  waitForOutput(pattern: RegExp | string, timeoutMs?: number): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  /** Output payload bytes received so far, as the browser counts them for a resume. */
  received(): number;
  /** The last resume key the server gave (`k`), if any. */
  resumeKey(): ResumeKey | undefined;
  close(): void;
  socket: WebSocket;
}

export interface OpenTerminalOptions {
  baseUrl: string;
  /** Headers of a signed-in browser (cookie + authorization) as the app harness gives them. */
  headers: Record<string, string>;
  /** The terminal request, or another terminal socket's params (the SQL console's). */
  params: TerminalRequest | Record<string, unknown>;
  /** Another terminal socket than the servers' (the SQL console's). */
  path?: string;
  origin?: string;
  /** Acknowledge output automatically as it arrives (default true). */
  autoAck?: boolean;
  /** Override the bearer sent in the first frame. */
  token?: string;
  /** Resume a session instead (docs/protocol.md §6.1): its key and the bytes received. */
  resume?: { sid: string; key: string; received: number };
}

/**
 * A headless terminal client for tests: it speaks the browser's protocol (docs/protocol.md) over
 * a real WebSocket, with the cookie of the upgrade and the bearer in the first frame.
 */
export async function openTerminal(options: OpenTerminalOptions): Promise<TerminalClient> {
  const url = new URL(
    options.path ?? apiPaths.terminalConnect('-current-'),
    options.baseUrl.replace(/^http/, 'ws'),
  );
  url.searchParams.set('params', JSON.stringify(options.params));
  url.searchParams.set('traceparent', `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`);
  const socket = new WebSocket(url, {
    headers: {
      cookie: options.headers.cookie ?? '',
      ...(options.origin ? { origin: options.origin } : {}),
    },
  });
  const frames: TerminalEnvelope[] = [];
  let text = '';
  let received = 0;
  let acked = 0;
  const autoAck = options.autoAck ?? true;
  // Frames may come in the same read as the session's answer, before `client` below exists.
  const ackAll = () => {
    if (received > acked && socket.readyState === socket.OPEN) {
      socket.send(encodeEnvelope(T.outputAck, String(received - acked)));
      acked = received;
    }
  };
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const response = await new Promise<{ status: string; message?: string }>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    socket.on('open', () => {
      const bearer = options.token ?? options.headers.authorization?.replace(/^Bearer /, '') ?? '';
      socket.send(
        JSON.stringify({ token: bearer, ...(options.resume ? { resume: options.resume } : {}) }),
      );
    });
    socket.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) return resolve(JSON.parse(data.toString()) as { status: string });
      const frame = decodeEnvelope(new Uint8Array(data));
      frames.push(frame);
      if (frame.type === T.raw) {
        const bytes = decodeEnvelopeBytes(new Uint8Array(data)).body.length;
        received += bytes;
        text += frame.payload;
        if (autoAck) ackAll();
      }
    });
  });
  const client: TerminalClient = {
    response,
    frames,
    socket,
    closed,
    output: () => text,
    received: () => received,
    resumeKey: () => {
      const frame = frames.findLast((f) => f.type === T.resumeKey);
      return frame && resumeKeySchema.parse(JSON.parse(frame.payload));
    },
    send: (type, payload = '') => socket.send(encodeEnvelope(type, payload)),
    type: (keys) => client.send(T.raw, keys),
    ackAll,
    async waitFor(predicate, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}; output so far:\n${text.slice(-2000)}`);
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    waitForOutput(pattern, timeoutMs) {
      const test = (s: string) =>
        typeof pattern === 'string' ? s.includes(pattern) : pattern.test(s);
      return client.waitFor(() => test(text), `output ${String(pattern)}`, timeoutMs);
    },
    close: () => socket.close(1000),
  };
  return client;
}
