import { EventEmitter } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { ExecRequest } from './exec-request.js';
import { channel, streamProtocolV5, type RemoteCommandProtocol } from './protocol.js';
import { ResizeDecoder } from './resize.js';
import type { ExecServerSession } from './session.js';
import type { Status } from '../httpstream/status.js';
import {
  ChannelReaders,
  ChannelWriter,
  channelMessage,
  channelMessageSink,
} from './ws-channels.js';

/** How long `finish` waits for the client to answer the close before cutting the socket. */
const closeGraceMs = 2_000;

/**
 * The server's side of exec/attach over an accepted WebSocket whose subprotocol is v4 or v5
 * (`channel.k8s.io`: binary messages, a channel byte first).
 */
export function serveExecOverWebSocket(
  socket: WebSocket,
  protocol: RemoteCommandProtocol,
  request: ExecRequest,
): ExecServerSession {
  const readers = new ChannelReaders(socket, request.stdin ? [channel.stdin] : []);
  const stdout = request.stdout ? new ChannelWriter(socket, channel.stdout) : undefined;
  const stderr = request.stderr ? new ChannelWriter(socket, channel.stderr) : undefined;
  const resizes = new EventEmitter();
  const decoder = new ResizeDecoder();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

  socket.on('message', (data: RawData, isBinary: boolean) => {
    if (!isBinary) return; // The binary protocols only; text belongs to base64 ones we refuse.
    const bytes = toBuffer(data);
    if (bytes.length === 0) return;
    const payload = bytes.subarray(1);
    switch (bytes[0]) {
      case channel.stdin:
        readers.deliver(bytes);
        return;
      case channel.resize:
        if (request.tty) for (const size of decoder.push(payload)) resizes.emit('resize', size);
        return;
      case channel.close:
        // v5's close signal; v4 has no such channel. kubectl only ever closes stdin.
        if (protocol === streamProtocolV5 && payload[0] === channel.stdin) {
          readers.end(channel.stdin);
        }
        return;
    }
  });
  socket.on('error', () => socket.terminate());
  socket.resume();
  socket.once('close', () => {
    readers.endAll();
    stdout?.destroy();
    stderr?.destroy();
  });

  return {
    transport: 'websocket',
    protocol,
    request,
    tty: request.tty,
    stdin: readers.get(channel.stdin),
    stdout,
    stderr,
    outputSink: channelMessageSink(socket),
    onResize: (listener) => void resizes.on('resize', listener),
    finish: async (status: Status) => {
      await Promise.all([flushed(stdout), flushed(stderr)]);
      if (socket.readyState === socket.OPEN) {
        socket.send(channelMessage(channel.error, Buffer.from(JSON.stringify(status))));
        socket.close(1000);
        const timer = setTimeout(() => socket.terminate(), closeGraceMs);
        timer.unref();
      }
      await closed;
    },
    abort: () => socket.terminate(),
    closed,
  };
}

/** Ends a channel and waits until what was written left (or the socket went away). */
async function flushed(writer: Writable | undefined): Promise<void> {
  if (!writer) return;
  writer.end();
  await finished(writer, { readable: false }).catch(() => undefined);
}

export function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
