import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { SpdyConnection } from '../spdy/spdy-connection.js';
import { headerList, isSpdyUpgrade, pickProtocol } from './negotiate.js';
import { rawResponseHead } from '../../../net/raw-http.js';
import { refuseUpgrade } from './raw-response.js';

export const streamProtocolHeader = 'X-Stream-Protocol-Version';
export const acceptedProtocolsHeader = 'X-Accepted-Stream-Protocol-Versions';

/**
 * Takes a SPDY/3.1 upgrade as an API server does (apimachinery's httpstream.Handshake and the
 * SPDY response upgrader): the client lists versions in X-Stream-Protocol-Version, one per
 * header line, best first; the first one the server speaks is answered in the 101. No version
 * in common is a 403 listing the server's (X-Accepted-Stream-Protocol-Versions).
 */
export function acceptSpdyUpgrade<T extends string>(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  supported: readonly T[],
): { connection: SpdyConnection; protocol: T } {
  if (!isSpdyUpgrade(req)) {
    throw refuseUpgrade(socket, 400, 'unable to upgrade: missing upgrade headers in request');
  }
  const offered = headerList(req, streamProtocolHeader);
  if (offered.length === 0) {
    throw refuseUpgrade(socket, 400, `unable to upgrade: ${streamProtocolHeader} is required`);
  }
  const protocol = pickProtocol(offered, supported);
  if (!protocol) {
    throw refuseUpgrade(
      socket,
      403,
      `unable to upgrade: unable to negotiate protocol: client supports ${offered.join(', ')}, server accepts ${supported.join(', ')}`,
      { [acceptedProtocolsHeader]: [...supported] },
    );
  }
  socket.write(
    rawResponseHead(101, {
      Connection: 'Upgrade',
      Upgrade: 'SPDY/3.1',
      [streamProtocolHeader]: protocol,
    }),
  );
  const connection = new SpdyConnection(socket, { role: 'server', head });
  return { connection, protocol };
}
