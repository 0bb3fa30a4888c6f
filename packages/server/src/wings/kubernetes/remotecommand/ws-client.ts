import type WebSocket from 'ws';
import type { RawData } from 'ws';
import { failureStatus, parseStatus, type Status } from '../httpstream/status.js';
import type { ExecRequest } from './exec-request.js';
import { channel, streamProtocolV5, type RemoteCommandProtocol } from './protocol.js';
import { encodeResize } from './resize.js';
import type { ExecClientSession } from './session.js';
import { ChannelReaders, ChannelWriter, channelMessage } from './ws-channels.js';
import { toBuffer } from './ws-server.js';

/** The most of the error channel kept: a Status is small. */
const maxStatusBytes = 64 * 1024;

/**
 * The client's side of exec/attach over an open WebSocket (v5 or v4). The status comes on the
 * error channel; the server closes the socket after it.
 */
export function execOverWebSocket(
  socket: WebSocket,
  protocol: RemoteCommandProtocol,
  request: ExecRequest,
): ExecClientSession {
  const outputs: number[] = [];
  if (request.stdout) outputs.push(channel.stdout);
  if (request.stderr) outputs.push(channel.stderr);
  const readers = new ChannelReaders(socket, outputs);
  // Only v5 can say that stdin ended; under v4 the command sees EOF when the socket closes.
  const closeStdin = () => {
    if (protocol === streamProtocolV5 && socket.readyState === socket.OPEN) {
      socket.send(Buffer.from([channel.close, channel.stdin]));
    }
  };
  const stdin = request.stdin ? new ChannelWriter(socket, channel.stdin, closeStdin) : undefined;
  const errorBytes: Buffer[] = [];
  let errorLength = 0;

  socket.on('message', (data: RawData, isBinary: boolean) => {
    const bytes = toBuffer(data);
    if (!isBinary || bytes.length === 0) return;
    const payload = bytes.subarray(1);
    if (bytes[0] === channel.error) {
      if (errorLength + payload.length <= maxStatusBytes) errorBytes.push(payload);
      errorLength += payload.length;
    } else if (bytes[0] === channel.close) {
      readers.end(payload[0] ?? -1);
    } else {
      readers.deliver(bytes);
    }
  });
  socket.on('error', () => socket.terminate());
  socket.resume();
  const status = new Promise<Status>((resolve) => {
    socket.once('close', (code: number) => {
      readers.endAll();
      stdin?.destroy();
      if (errorLength > 0 || code === 1000 || code === 1005) {
        resolve(parseStatus(Buffer.concat(errorBytes)));
      } else {
        resolve(failureStatus(`the connection closed (code ${code}) before the command ended`));
      }
    });
  });

  return {
    transport: 'websocket',
    protocol,
    stdin,
    stdout: readers.get(channel.stdout),
    stderr: readers.get(channel.stderr),
    divertOutput: (sink) => readers.divert(outputs, sink),
    resize: (width, height) => {
      if (!request.tty || socket.readyState !== socket.OPEN) return;
      socket.send(channelMessage(channel.resize, encodeResize({ width, height })));
    },
    status,
    close: () => {
      if (socket.readyState === socket.OPEN) socket.close(1000);
      else socket.terminate();
    },
  };
}
