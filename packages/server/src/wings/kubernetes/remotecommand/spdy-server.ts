import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { rstStatus } from '../spdy/frames.js';
import type { SpdyConnection } from '../spdy/spdy-connection.js';
import type { SpdyStream } from '../spdy/spdy-stream.js';
import type { ExecRequest } from './exec-request.js';
import { streamType, type RemoteCommandProtocol } from './protocol.js';
import { ResizeDecoder } from './resize.js';
import type { ExecServerSession } from './session.js';
import type { Status } from '../httpstream/status.js';

/** The streams a client must open for `request`, as the kubelet expects them. */
export function expectedStreamTypes(request: ExecRequest): string[] {
  const types: string[] = [streamType.error];
  if (request.stdin) types.push(streamType.stdin);
  if (request.stdout) types.push(streamType.stdout);
  if (request.stderr && !request.tty) types.push(streamType.stderr);
  if (request.tty) types.push(streamType.resize);
  return types;
}

/**
 * The server's side of exec/attach over a SPDY connection: the client opens one stream per
 * channel, named by `streamType`; each is replied to as it comes, and the session starts once
 * all the request calls for are there (the kubelet gives them 30 seconds, as here by default).
 */
export async function serveExecOverSpdy(
  connection: SpdyConnection,
  protocol: RemoteCommandProtocol,
  request: ExecRequest,
  options: { streamTimeoutMs?: number } = {},
): Promise<ExecServerSession> {
  const streams = await collectStreams(connection, request, options.streamTimeoutMs ?? 30_000);
  const resizes = new EventEmitter();
  const resize = streams.get(streamType.resize);
  if (resize) {
    const decoder = new ResizeDecoder();
    resize.on('data', (chunk: Buffer) => {
      for (const size of decoder.push(chunk)) resizes.emit('resize', size);
    });
  }
  const closed = connection.closed.then(() => undefined);
  return {
    transport: 'spdy',
    protocol,
    request,
    tty: request.tty,
    stdin: streams.get(streamType.stdin),
    stdout: streams.get(streamType.stdout),
    stderr: streams.get(streamType.stderr),
    onResize: (listener) => void resizes.on('resize', listener),
    finish: async (status: Status) => {
      await Promise.all([
        flushed(streams.get(streamType.stdout)),
        flushed(streams.get(streamType.stderr)),
      ]);
      const error = streams.get(streamType.error);
      if (error && !error.destroyed) error.end(JSON.stringify(status));
      await flushed(error);
      // Our halves of stdin and resize end too, then GOAWAY: spdystream stops reading after it.
      await Promise.all([
        flushed(streams.get(streamType.stdin)),
        flushed(streams.get(streamType.resize)),
      ]);
      await connection.close();
    },
    abort: () => connection.destroy(),
    closed,
  };
}

async function collectStreams(
  connection: SpdyConnection,
  request: ExecRequest,
  timeoutMs: number,
): Promise<Map<string, SpdyStream>> {
  const expected = new Set(expectedStreamTypes(request));
  const streams = new Map<string, SpdyStream>();
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      connection.off('stream', onStream);
      connection.off('close', onClose);
      if (!error) return resolve(streams);
      connection.destroy();
      reject(error);
    };
    const onStream = (stream: SpdyStream) => {
      const type = stream.header('streamType') ?? '';
      if (!expected.has(type) || streams.has(type)) return stream.reset(rstStatus.refusedStream);
      stream.reply();
      streams.set(type, stream);
      if (streams.size === expected.size) done();
    };
    const onClose = () => done(new Error('the client left before opening its streams'));
    const timer = setTimeout(() => {
      const missing = [...expected].filter((type) => !streams.has(type));
      done(new Error(`timed out waiting for the client's streams: ${missing.join(', ')}`));
    }, timeoutMs);
    connection.on('stream', onStream);
    connection.on('close', onClose);
  });
}

/** Ends a stream's writing side and waits until it is out (or the stream is gone). */
async function flushed(stream: Writable | undefined): Promise<void> {
  if (!stream || stream.destroyed) return;
  stream.end();
  await finished(stream, { readable: false }).catch(() => undefined);
}
