import { errorBody, errorCatalogue } from '@postern/contracts';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { marksOf, type LockView } from '../../access-control/locks/lock-watcher.js';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import type { AuditStore } from '../audit/index.js';
import { asSocket } from '../../net/post-json.js';
import { rawResponseHead } from '../../net/raw-http.js';
import { rootMfaHeader, webSessionMfaSubject } from '../../identity/mfa/session-mfa.js';
import { certCaller, leafSessionHeaders, type DialLeaf, type LeafGrants } from './leaf-grants.js';
import { relayLeafHop } from './leaf-hop.js';
import { rootWord, type RootSigner } from './root-checks.js';
import type { LeafSessionGrant } from './leaf-sessions.js';

/**
 * The tunnels a CLI may open on a leaf through the root (`postern proxy db|app --cluster`,
 * `postern db connect --cluster`): `sites/<leaf>/dbconnect/<name>`, `sites/<leaf>/tcpapps/<name>`.
 */
const tunnelPath = /^\/v1\/webapi\/sites\/[^/?#]+\/(dbconnect|tcpapps)\/([^/?#]+)$/;
const kindOf = { dbconnect: 'database', tcpapps: 'app' } as const;

const answerTimeoutMs = 15_000;
/** The most of a leaf's refusal the client is shown. */
const maxRefusalBytes = 16 * 1024;

/** The WebSocket handshake's own headers: passed to the leaf, which answers the client's key. */
const handshakeHeaders = [
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
] as const;

export interface LeafTunnelDeps {
  certAuth: Pick<CertRequestAuth, 'identify'>;
  /** Signs the root's word that the user passed a per-session MFA check here (root-checks.ts). */
  signer: RootSigner;
  grants: Pick<LeafGrants, 'for' | 'drop'>;
  dial: DialLeaf;
  locks: LockView;
  audit: AuditStore;
  now: Clock;
  log: (message: string, fields: object) => void;
}

interface Opened {
  answer: IncomingMessage;
  upstream?: Duplex;
  upstreamHead?: Buffer;
}

/**
 * A tunnel of the CLI's to a leaf's database or TCP app, through the root. The root checks the
 * certificate's signature as on its own routes (and its locks), then opens the same WebSocket on
 * the leaf with the leaf session the leaf grants this user, so the leaf's role map, RBAC, locks,
 * per-session MFA and audit decide (a check the CLI passed here, with a per-session certificate
 * for `db:<name>@<leaf>`, goes to the leaf as this root's signed word). From the leaf's `101`
 * on, the client's frames pass through unread. The root audits the hop's start and end and ends
 * it when it locks the user or the certificate runs out, as for `ssh` to a leaf (leaf-hop.ts).
 */
export async function relayTunnelToLeaf(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  leaf: string,
  deps: LeafTunnelDeps,
): Promise<void> {
  socket.on('error', () => undefined);
  try {
    const match = tunnelPath.exec(req.url ?? '');
    const name = match ? safelyDecoded(match[2]!) : undefined;
    if (!match || name === undefined || req.method !== 'GET') {
      throw new ApiError('access_denied', 'a signed upgrade to a leaf may only open a tunnel');
    }
    // No body to hash: identify reads the headers, the method, the URL and the address.
    const shim = { headers: req.headers, method: req.method, url: req.url, ip: addressOf(req) };
    const signer = await deps.certAuth.identify(shim as unknown as FastifyRequest);
    const caller = certCaller(signer);
    const segment = match[1] as keyof typeof kindOf;
    // A per-session MFA certificate of this root for this tunnel (`db:<name>@<leaf>`): the check
    // ran here, with the user's devices; the leaf gets this root's word for its subject instead.
    const resource = `${segment === 'dbconnect' ? 'db' : 'app'}:${name}`;
    const checked = signer.sessionMfaTargets?.includes(`${resource}@${leaf}`) === true;
    const attempt = async () => {
      const grant = await deps.grants.for(caller, leaf);
      const subject = webSessionMfaSubject(grant.session, resource);
      const word = checked ? await rootWord(deps.signer, leaf, signer.user, subject) : undefined;
      return open(req, leaf, grant, word, deps);
    };
    let opened = await attempt();
    // A leaf that restarted, or ended the session it granted, answers 401: ask for a new one.
    if (opened.answer.statusCode === 401) {
      opened.answer.resume();
      deps.grants.drop(caller, leaf);
      opened = await attempt();
    }
    if (!opened.upstream) return await passRefusal(opened.answer, socket);
    const hop = { cluster: leaf, kind: kindOf[segment], name };
    socket.write(switchingHead(opened.answer));
    if (opened.upstreamHead?.length) socket.write(opened.upstreamHead);
    if (head.length > 0) opened.upstream.write(head);
    relayLeafHop(
      socket,
      opened.upstream,
      {
        user: signer.user,
        roles: caller.roles,
        ...marksOf(signer),
        expiresMs: Date.parse(caller.expires),
        remoteAddr: addressOf(req),
        codes: { start: 'TPOS062I', end: 'TPOS063I' },
        fields: hop,
      },
      deps,
    );
  } catch (error) {
    const known =
      error instanceof ApiError
        ? error
        : new ApiError('connection_problem', `${leaf} cannot be reached`);
    if (!(error instanceof ApiError)) deps.log('a tunnel to a leaf failed', { leaf, err: error });
    endWithError(socket, known);
  }
}

/** The same upgrade on the leaf, with the leaf session instead of the CLI's signature. */
function open(
  req: IncomingMessage,
  leaf: string,
  grant: LeafSessionGrant,
  word: string | undefined,
  deps: Pick<LeafTunnelDeps, 'dial'>,
): Promise<Opened> {
  return deps.dial(leaf).then(
    (stream) =>
      new Promise<Opened>((resolve, reject) => {
        const handshake: IncomingHttpHeaders = {};
        for (const name of handshakeHeaders) {
          if (req.headers[name] !== undefined) handshake[name] = req.headers[name];
        }
        const request = http.request({
          path: req.url,
          host: leaf,
          headers: {
            ...handshake,
            connection: 'Upgrade',
            upgrade: 'websocket',
            ...leafSessionHeaders(grant),
            ...(word ? { [rootMfaHeader]: word } : {}),
          },
          createConnection: () => asSocket(stream),
          timeout: answerTimeoutMs,
        });
        request.on('upgrade', (answer, upstream, upstreamHead) => {
          upstream.setTimeout(0);
          resolve({ answer, upstream, upstreamHead });
        });
        request.on('response', (answer) => resolve({ answer }));
        request.on('timeout', () => request.destroy(new Error(`${leaf} did not answer in time`)));
        request.on('error', reject);
        request.end();
      }),
  );
}

/** The leaf's `101` for the client, with the handshake's answer the leaf computed. */
function switchingHead(answer: IncomingMessage): string {
  const headers: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(answer.headersDistinct)) {
    if (values) headers[name] = values;
  }
  return rawResponseHead(101, headers);
}

/** The leaf's refusal (its status and JSON message), as the root's own answer. */
async function passRefusal(answer: IncomingMessage, socket: Duplex): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxRefusalBytes) break;
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const head = rawResponseHead(answer.statusCode ?? 502, {
    'content-type': String(answer.headers['content-type'] ?? 'text/plain'),
    'x-content-type-options': 'nosniff',
    'content-length': String(body.length),
    connection: 'close',
  });
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

function endWithError(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify(errorBody(error.code, error.message));
  const head = rawResponseHead(errorCatalogue[error.code], {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  });
  socket.end(head + body);
}

function safelyDecoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function addressOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? '';
}
