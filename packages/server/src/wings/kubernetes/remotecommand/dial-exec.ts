import { dialSpdy } from '../httpstream/dial-spdy.js';
import { dialWebSocket } from '../httpstream/dial-websocket.js';
import { UpgradeFailedError, type DialOptions } from '../httpstream/dial-options.js';
import { execQuery, parseExecRequest, withTtyRule, type ExecRequest } from './exec-request.js';
import { remoteCommandProtocols } from './protocol.js';
import type { ExecClientSession, RemoteCommandTransport } from './session.js';
import { execOverSpdy } from './spdy-client.js';
import { execOverWebSocket } from './ws-client.js';

export interface DialExecOptions extends DialOptions {
  /** What to ask for; written into the URL's query. Read from the URL's query when not given. */
  request?: ExecRequest;
  /** Transports to try in order (default WebSocket, then SPDY, as kubectl 1.30 and later). */
  transports?: RemoteCommandTransport[];
}

/**
 * Starts an exec or attach at `url` (…/pods/{name}/exec or /attach). Like kubectl, it tries a
 * WebSocket first and falls back to SPDY only when the server refuses the upgrade itself (an
 * UpgradeFailedError); a network or TLS error, or a refusal by the last transport, rejects.
 * WebSocket upgrades use GET and SPDY ones POST, as client-go does.
 */
export async function dialExec(
  url: URL | string,
  options: DialExecOptions = {},
): Promise<ExecClientSession> {
  const target = new URL(url);
  const request = withTtyRule(options.request ?? parseExecRequest(target.searchParams));
  if (options.request) target.search = execQuery(request).toString();
  const transports = options.transports ?? ['websocket', 'spdy'];
  let refusal: Error = new Error('no transport to try');
  for (const transport of transports) {
    try {
      if (transport === 'websocket') {
        const { socket, protocol } = await dialWebSocket(target, remoteCommandProtocols, options);
        return execOverWebSocket(socket, protocol, request);
      }
      const { connection, protocol } = await dialSpdy(target, remoteCommandProtocols, options);
      return await execOverSpdy(connection, protocol, request);
    } catch (error) {
      if (!(error instanceof UpgradeFailedError)) throw error;
      refusal = error;
    }
  }
  throw refusal;
}
