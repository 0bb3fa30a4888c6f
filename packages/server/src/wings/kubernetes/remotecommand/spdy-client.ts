import type { SpdyConnection } from '../spdy/spdy-connection.js';
import type { SpdyStream } from '../spdy/spdy-stream.js';
import { failureStatus, parseStatus, type Status } from '../httpstream/status.js';
import type { ExecRequest } from './exec-request.js';
import { streamType, type RemoteCommandProtocol } from './protocol.js';
import { encodeResize } from './resize.js';
import type { ExecClientSession } from './session.js';
import { expectedStreamTypes } from './spdy-server.js';

/** The most of the error stream kept: a Status is small. */
const maxStatusBytes = 64 * 1024;

/**
 * The client's side of exec/attach over an upgraded SPDY connection: one stream per channel,
 * as client-go opens them (error, stdin, stdout, stderr without a tty, resize with one), each
 * waiting for the server's reply.
 */
export async function execOverSpdy(
  connection: SpdyConnection,
  protocol: RemoteCommandProtocol,
  request: ExecRequest,
): Promise<ExecClientSession> {
  const types = expectedStreamTypes(request);
  let streams: Map<string, SpdyStream>;
  try {
    const opened = await Promise.all(
      types.map((type) => connection.openStream({ streamType: type })),
    );
    streams = new Map(types.map((type, index) => [type, opened[index]!]));
  } catch (error) {
    connection.destroy();
    throw error;
  }
  const errorStream = streams.get(streamType.error)!;
  const status = new Promise<Status>((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    errorStream.on('data', (chunk: Buffer) => {
      if (length + chunk.length <= maxStatusBytes) chunks.push(chunk);
      length += chunk.length;
    });
    errorStream.once('end', () => resolve(parseStatus(Buffer.concat(chunks))));
    errorStream.once('close', () =>
      resolve(failureStatus('the connection closed before the command ended')),
    );
  });
  const resize = streams.get(streamType.resize);

  return {
    transport: 'spdy',
    protocol,
    stdin: streams.get(streamType.stdin),
    stdout: streams.get(streamType.stdout),
    stderr: streams.get(streamType.stderr),
    resize: (width, height) => {
      if (resize && !resize.destroyed && resize.writable)
        resize.write(encodeResize({ width, height }));
    },
    status,
    close: () => void connection.close(),
  };
}
