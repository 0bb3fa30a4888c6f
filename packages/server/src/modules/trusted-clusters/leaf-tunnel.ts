import { errorBodySchema } from '@postern/contracts';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { createWebSocketStream } from 'ws';
import { rootMfaHeader } from '../../identity/mfa/session-mfa.js';
import { asSocket } from '../../net/post-json.js';
import type { LeafCaller } from './leaf-grants.js';
import type { LeafReach } from './leaf-reach.js';

/** The leaf did not open the tunnel: its status, and its reason when it gave one. */
export class LeafTunnelRefusal extends Error {
  override name = 'LeafTunnelRefusal';
  constructor(
    readonly status: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const openTimeoutMs = 15_000;
/** The most of a refusal's body read for its reason. */
const maxRefusalBytes = 8 * 1024;

/**
 * A tunnel a root opens on a leaf for one of its users, as `postern proxy db|app --cluster` would
 * (`sites/<leaf>/dbconnect/<name>`, `sites/<leaf>/tcpapps/<name>`), with the leaf session the
 * leaf granted them: the leaf's role map, locks, per-session MFA and audit decide, and the bytes
 * are the tunnel's. `word` is this root's signed word for a per-session check the user passed
 * here, for the leaf session given. A leaf that no longer takes the session (401) is asked for a
 * new one, once; any other refusal comes back as a LeafTunnelRefusal with the leaf's reason.
 */
export async function openLeafTunnel(
  reach: Pick<LeafReach, 'passage'>,
  leaf: string,
  caller: LeafCaller,
  path: string,
  word?: (leafSession: string) => Promise<string | undefined>,
): Promise<Duplex> {
  const attempt = async () => {
    const passage = await reach.passage(leaf, caller);
    const signed = word ? await word(passage.session) : undefined;
    const headers = { ...passage.headers, ...(signed ? { [rootMfaHeader]: signed } : {}) };
    try {
      return await upgrade(await passage.dial(), path, headers);
    } catch (error) {
      if (error instanceof LeafTunnelRefusal && error.status === 401) passage.drop();
      throw error;
    }
  };
  try {
    return await attempt();
  } catch (error) {
    if (error instanceof LeafTunnelRefusal && error.status === 401) return attempt();
    throw error;
  }
}

/** The WebSocket the leaf's tunnel route takes, over `stream`, as a byte stream. */
function upgrade(stream: Duplex, path: string, headers: Record<string, string>): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://leaf${path}`, {
      headers,
      perMessageDeflate: false,
      handshakeTimeout: openTimeoutMs,
      createConnection: () => asSocket(stream) as never,
    });
    socket.once('open', () => resolve(createWebSocketStream(socket)));
    socket.once('unexpected-response', (request: http.ClientRequest, answer) => {
      const status = answer.statusCode ?? 502;
      void refusalReason(answer).then((reason) => {
        request.destroy();
        stream.destroy();
        reject(new LeafTunnelRefusal(status, reason));
      });
    });
    socket.once('error', (error) => {
      stream.destroy();
      reject(error);
    });
  });
}

/** The leaf's reason from its error body (`{error: {message}}`), or its status. */
async function refusalReason(answer: http.IncomingMessage): Promise<string> {
  const general = `the leaf refused the tunnel (HTTP ${answer.statusCode ?? 502})`;
  let body = '';
  try {
    for await (const chunk of answer) {
      body += String(chunk);
      if (body.length > maxRefusalBytes) return general;
    }
    const parsed = errorBodySchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.error.message : general;
  } catch {
    return general;
  }
}
