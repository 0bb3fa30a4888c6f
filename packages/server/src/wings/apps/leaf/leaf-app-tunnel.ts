import { apiPaths, errorBodySchema } from '@postern/contracts';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { createWebSocketStream } from 'ws';
import { rootMfaHeader, webSessionMfaSubject } from '../../../identity/mfa/session-mfa.js';
import type { LeafCaller } from '../../../modules/trusted-clusters/leaf-grants.js';
import type { LeafReach } from '../../../modules/trusted-clusters/leaf-reach.js';
import { asSocket } from '../../../net/post-json.js';
import type { AppIdentity } from '../app-sessions.service.js';
import { UpstreamRefusal } from '../proxy/error-replies.js';

type LeafApp = NonNullable<AppIdentity['leaf']>;

/** The leaf refused the tunnel for another reason than access: the browser gets a 502. */
export class LeafAppRefusal extends Error {
  override name = 'LeafAppRefusal';
  constructor(readonly status: number) {
    super(`the leaf refused the connection to its app (HTTP ${status})`);
  }
}

/**
 * The leaf refused this user the app (403: its role map no longer grants it, a lock there): the
 * browser is shown the leaf's reason rather than a bare 502.
 */
export class LeafAppDenial extends UpstreamRefusal {
  override name = 'LeafAppDenial';
}

/** The most a refusal's body is read for its reason. */
const maxRefusalBytes = 8 * 1024;

const openTimeoutMs = 15_000;

/**
 * The user's leaf session as the root asks the leaf for it: one per app session, so a role or
 * lock change here reaches the leaf with the next grant (leaf-grants.ts).
 */
export function appSessionCaller(identity: AppIdentity): LeafCaller {
  return {
    key: `app:${identity.sid}`,
    user: identity.user,
    roles: identity.roles,
    traits: identity.traits,
    expires: new Date(identity.expiresMs).toISOString(),
    sessionMfa: identity.leaf?.sessionMfa ?? false,
  };
}

/**
 * One connection to a leaf's HTTP app for a browser's app session on this root: the tunnel
 * `postern proxy app --cluster` opens (`sites/<leaf>/tcpapps/<name>`), opened by the root itself
 * with the user's leaf session, over which the leaf serves HTTP as for any tunnel (its role map
 * and locks decide, its identity JWT, header rules and audit). A launch that passed a per-session
 * MFA check carries this root's word for it. A leaf that no longer takes the session (401) is
 * asked for a new one, once.
 */
export async function openLeafAppTunnel(
  reach: LeafReach,
  identity: AppIdentity & { leaf: LeafApp },
): Promise<Duplex> {
  const caller = appSessionCaller(identity);
  const { cluster, app, checked } = identity.leaf;
  const attempt = async () => {
    const passage = await reach.passage(cluster, caller);
    const subject = webSessionMfaSubject(passage.session, `app:${app}`);
    const word = checked ? await reach.word(cluster, caller.user, subject) : undefined;
    const headers = { ...passage.headers, ...(word ? { [rootMfaHeader]: word } : {}) };
    try {
      return await upgrade(await passage.dial(), apiPaths.appTcpIn(cluster, app), headers);
    } catch (error) {
      if (error instanceof LeafAppRefusal && error.status === 401) passage.drop();
      throw error;
    }
  };
  try {
    return await attempt();
  } catch (error) {
    if (error instanceof LeafAppRefusal && error.status === 401) return attempt();
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
      const done = (error: Error) => {
        request.destroy();
        stream.destroy();
        reject(error);
      };
      if (status !== 403) {
        answer.resume();
        return done(new LeafAppRefusal(status));
      }
      void refusalReason(answer).then((reason) => done(new LeafAppDenial(reason)));
    });
    socket.once('error', (error) => {
      stream.destroy();
      reject(error);
    });
  });
}

/** The leaf's reason from its error body (`{error: {message}}`), or a general one. */
async function refusalReason(answer: http.IncomingMessage): Promise<string> {
  const general = 'the cluster that serves this application refused access';
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
