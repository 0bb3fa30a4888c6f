import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { SpdyConnection } from '../spdy/spdy-connection.js';
import { streamProtocolHeader } from './accept-spdy.js';
import { upgradeFailure, UpgradeFailedError, type DialOptions } from './dial-options.js';

/**
 * Upgrades an HTTP request to SPDY/3.1 as client-go does: `Connection: Upgrade`, `Upgrade:
 * SPDY/3.1`, and one X-Stream-Protocol-Version line per version offered, best first. The
 * server's 101 names the version it chose. Any other answer is an UpgradeFailedError.
 */
export function dialSpdy<T extends string>(
  url: URL,
  protocols: readonly T[],
  options: DialOptions & { method?: string } = {},
): Promise<{ connection: SpdyConnection; protocol: T }> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? 'POST',
      // No agent: with one, Node would dial its own socket and ignore createConnection.
      ...(options.createConnection
        ? { createConnection: options.createConnection }
        : { agent: false }),
      ...options.tls,
      headers: {
        ...options.headers,
        Connection: 'Upgrade',
        Upgrade: 'SPDY/3.1',
        [streamProtocolHeader]: [...protocols],
        'Content-Length': '0',
      },
    });
    req.once('upgrade', (response: IncomingMessage, socket: Duplex, head: Buffer) => {
      const chosen = response.headers[streamProtocolHeader.toLowerCase()];
      const protocol = protocols.find((offered) => offered === chosen);
      if (!protocol) {
        socket.destroy();
        return reject(
          new UpgradeFailedError(101, `the server upgraded to an unknown protocol: ${chosen}`),
        );
      }
      resolve({ connection: new SpdyConnection(socket, { role: 'client', head }), protocol });
    });
    req.once('response', (response: IncomingMessage) => {
      void upgradeFailure(response).then(reject);
    });
    req.once('error', reject);
    req.end();
  });
}
