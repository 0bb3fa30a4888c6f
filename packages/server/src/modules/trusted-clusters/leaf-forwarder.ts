import { errorBody, errorCatalogue } from '@postern/contracts';
import http, {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { lockMessage } from '../../access-control/locks/lock-watcher.js';
import { ApiError } from '../../errors.js';
import type { HostHandler } from '../../http/host-routes.js';
import { readCookie } from '../../http/read-cookie.js';
import { sameOrigin } from '../../http/same-origin.js';
import {
  bearerToken,
  identifyByCredentials,
  sessionCookieName,
  type GuardDeps,
  type Identity,
} from '../../http/request-identity.js';
import { asSocket } from '../../net/post-json.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import { signedRequestHeaders } from '../../ssh/signed-request.js';
import type { FastifyRequest } from 'fastify';
import {
  certCaller,
  leafSessionHeaders,
  webCaller,
  type DialLeaf,
  type LeafCaller,
  type LeafGrants,
} from './leaf-grants.js';
import type { LeafSessionGrant } from './leaf-sessions.js';
import { relaySocketToLeaf } from './leaf-socket-relay.js';
import { relayTunnelToLeaf } from './leaf-tunnel-relay.js';
import type { AuditStore } from '../audit/index.js';
import type { Clock } from '../../clock.js';
import { rootCheckFor, rootWord, type RootSigner } from './root-checks.js';
import {
  rootMfaHeader,
  webSessionMfaSubject,
  type SessionMfa,
} from '../../identity/mfa/session-mfa.js';
import type { SessionMfaGrants } from '../../identity/mfa/session-mfa-grants.js';

/**
 * `/v1/webapi/sites/<cluster>/…`: the cluster a console call is about. A user's pins on a
 * cluster (`user/preferences/<cluster>`) are kept where that cluster's lists are answered, so a
 * leaf's are the leaf's too.
 */
const clusterPaths = [
  /^\/v1\/webapi\/sites\/([^/?#]+)(?:[/?#]|$)/,
  /^\/v1\/webapi\/user\/preferences\/([^/?#]+)(?:[?#]|$)/,
];

/** Hop-by-hop headers and the caller's credentials: never passed on. */
const dropped = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'cookie',
  'authorization',
  'origin',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  // A CLI's signature is the root's to check; the leaf gets the grant instead.
  ...Object.values(signedRequestHeaders),
  // Only the root speaks for its checks.
  rootMfaHeader,
]);

/** `sites/<leaf>/nodes/<server>/<login>/scp`: a file transfer, and its server. */
const fileTransferPath = /^\/v1\/webapi\/sites\/[^/?#]+\/nodes\/([^/?#]+)\/[^/?#]+\/scp(?:[?#]|$)/;

/**
 * Headers the root sets on every answer a leaf gives, whatever the leaf sent: these answers are
 * API data on the root's origin, so nothing in them may run there (a leaf that was taken over
 * must not get a script onto the root's console). Cookies from a leaf are dropped too.
 */
const confined = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
} as const;

export interface LeafForwarderOptions {
  /** Whether `name` is a leaf this root trusts now. */
  isLeaf: (name: string) => boolean;
  /** This cluster's own name: its `sites/<name>/…` calls are its own routes'. */
  rootName: string;
  grants: LeafGrants;
  guard: GuardDeps;
  /** The CLI's reads (`postern ls --cluster`), signed with the user's certificate. */
  certAuth: Pick<CertRequestAuth, 'identify'>;
  dial: DialLeaf;
  /** The root's log of the CLI's tunnels to a leaf (leaf-tunnel-relay.ts). */
  audit: AuditStore;
  now: Clock;
  log: (message: string, fields: object) => void;
  /** A leaf's per-session MFA checks for this root's users, run with this root's devices. */
  checks: RootSigner & {
    sessionMfa: Pick<SessionMfa, 'challenge' | 'verify'>;
    /** Checks passed on this root for console calls (`files:<server>`), by web session. */
    grants: Pick<SessionMfaGrants, 'holds'>;
  };
}

/**
 * The root's console calls about a leaf cluster (`sites/<leaf>/…`), HTTP and WebSocket alike,
 * taken before the root's own routes: the caller is signed in here (cookie and bearer, locks),
 * then the call goes through the leaf's tunnel with the leaf session the leaf granted this user,
 * so the leaf's own rules decide what they may do there.
 */
export class LeafForwarder implements HostHandler {
  private readonly agents = new Map<string, http.Agent>();

  constructor(private readonly options: LeafForwarderOptions) {}

  /**
   * Asked of every request to the web port: the path is read once. A leaf's calls are claimed,
   * and so is a CLI's signed call about a cluster that is neither this one nor a leaf (`postern
   * ls --cluster` with a typo), to be answered with what is wrong rather than by the root's own
   * routes, which would only say that the caller has no web session.
   */
  claims(_host: string, req: IncomingMessage): boolean {
    const name = this.clusterOf(req);
    if (name === undefined) return false;
    if (this.options.isLeaf(name)) return true;
    return (
      req.headers[signedRequestHeaders.signature] !== undefined && name !== this.options.rootName
    );
  }

  request(req: IncomingMessage, res: ServerResponse): void {
    const leaf = this.leafOf(req);
    if (!leaf) {
      const name = this.clusterOf(req);
      return sendError(
        res,
        new ApiError('not_found', `${name} is not a cluster this proxy trusts`),
      );
    }
    this.forward(req, res, leaf).catch((error: unknown) => {
      if (!(error instanceof ApiError))
        this.options.log('forwarding to a leaf failed', { leaf, err: error });
      const known =
        error instanceof ApiError
          ? error
          : new ApiError('connection_problem', `${leaf} cannot be reached`);
      if (!res.headersSent) sendError(res, known);
      else res.destroy();
    });
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const leaf = this.leafOf(req);
    if (leaf && req.headers[signedRequestHeaders.signature] !== undefined) {
      const { certAuth, grants, dial, audit, now, log, guard, checks } = this.options;
      const deps = { certAuth, grants, dial, audit, now, log, locks: guard.locks, signer: checks };
      void relayTunnelToLeaf(req, socket, head, leaf, deps);
      return;
    }
    if (!leaf || !sameOrigin(req)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const cookie = readCookie(req, sessionCookieName);
    relaySocketToLeaf(req, socket, head, {
      admit: async (bearer) => {
        const identity = await this.signedIn(cookie, bearer).catch(() => undefined);
        if (!identity) return { refused: 'not authenticated' };
        try {
          const grant = await this.options.grants.for(webCaller(identity), leaf);
          const who = {
            user: identity.user,
            rootSession: identity.session.id,
            leafSession: grant.session,
          };
          const check = rootCheckFor(who, leaf, {
            ...this.options.checks,
            origin: req.headers.origin,
          });
          return { grant, check };
        } catch (error) {
          return {
            refused: error instanceof ApiError ? error.message : `${leaf} cannot be reached`,
          };
        }
      },
      dial: () => this.options.dial(leaf),
      onError: (error) => this.options.log('a socket to a leaf failed', { leaf, err: error }),
    });
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
  }

  private leafOf(req: IncomingMessage): string | undefined {
    const name = this.clusterOf(req);
    return name !== undefined && this.options.isLeaf(name) ? name : undefined;
  }

  private clusterOf(req: IncomingMessage): string | undefined {
    const url = req.url ?? '';
    const match = clusterPaths.map((path) => path.exec(url)).find(Boolean);
    if (!match) return undefined;
    try {
      return decodeURIComponent(match[1]!);
    } catch {
      return undefined;
    }
  }

  private async forward(req: IncomingMessage, res: ServerResponse, leaf: string): Promise<void> {
    const { caller, rootSession } = await this.caller(req);
    const grant = await this.options.grants.for(caller, leaf);
    const vouch = (grantNow: LeafSessionGrant) =>
      rootSession ? this.vouchFor(req, leaf, caller.user, rootSession, grantNow) : undefined;
    let answer = await this.send(req, leaf, grant, await vouch(grant));
    // A leaf that restarted, or ended its session, answers 401: a call with no body is asked
    // again with a new grant; any other is refused without signing the user out of the root.
    if (answer.statusCode === 401) {
      answer.resume();
      this.options.grants.drop(caller, leaf);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new ApiError('access_denied', `${leaf} ended your session there: try again`);
      }
      const renewed = await this.options.grants.for(caller, leaf);
      answer = await this.send(req, leaf, renewed, await vouch(renewed));
    }
    res.writeHead(answer.statusCode ?? 502, {
      ...passedOn(answer.headers, ['set-cookie', ...Object.keys(confined)]),
      ...confined,
    });
    answer.pipe(res);
  }

  /**
   * A signed-in browser (cookie and bearer), or the CLI signing a read with the certificate of
   * `postern login` (`postern ls --cluster`): the same checks as on the root's own routes.
   */
  private async caller(
    req: IncomingMessage,
  ): Promise<{ caller: LeafCaller; rootSession?: string }> {
    if (req.headers[signedRequestHeaders.signature] !== undefined) {
      if (req.method !== 'GET') {
        throw new ApiError('access_denied', 'a signed call to a leaf may only read (GET)');
      }
      // No body to hash: identify reads the headers, the method, the URL and the address.
      const shim = {
        headers: req.headers,
        method: req.method,
        url: req.url ?? '',
        ip: req.socket.remoteAddress ?? '',
      };
      const signer = await this.options.certAuth.identify(shim as unknown as FastifyRequest);
      return { caller: certCaller(signer) };
    }
    const bearer = bearerToken(req.headers.authorization);
    const identity = await this.signedIn(readCookie(req, sessionCookieName), bearer);
    if (!identity) throw new ApiError('not_authenticated', 'you are not signed in');
    return { caller: webCaller(identity), rootSession: identity.session.id };
  }

  /** The caller as the root's own routes would take them: session, bearer, and no lock. */
  private async signedIn(
    cookie: string | undefined,
    bearer: string | undefined,
  ): Promise<Identity | null> {
    const { guard } = this.options;
    const identity = await identifyByCredentials(guard, cookie, bearer);
    if (!identity) return null;
    const { user, roles, session } = identity;
    const lock = guard.locks.lockFor({ user, roles, mfaDevice: session.mfaDevice });
    if (lock) throw new ApiError('access_denied', `locked: ${lockMessage(lock)}`);
    await guard.sessions.noteActivity(session);
    return identity;
  }

  /**
   * A file transfer to a leaf's server whose per-session MFA check the user passed here, on the
   * root (`POST mfa/session/verify` for `files:<server>`, with the root's devices): the root's
   * signed word for the leaf's subject of that check, which the leaf takes in its place.
   */
  private async vouchFor(
    req: IncomingMessage,
    leaf: string,
    user: string,
    rootSession: string,
    grant: LeafSessionGrant,
  ): Promise<string | undefined> {
    const serverId = fileTransferPath.exec(req.url ?? '')?.[1];
    if (!serverId) return undefined;
    const resource = `files:${decodeURIComponent(serverId)}`;
    const { checks } = this.options;
    if (!(await checks.grants.holds(rootSession, resource))) return undefined;
    return rootWord(checks, leaf, user, webSessionMfaSubject(grant.session, resource));
  }

  private send(
    req: IncomingMessage,
    leaf: string,
    grant: LeafSessionGrant,
    rootWord: string | undefined,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const upstream = http.request(
        {
          agent: this.agentFor(leaf),
          method: req.method,
          path: req.url,
          headers: {
            ...passedOn(req.headers),
            ...leafSessionHeaders(grant),
            ...(rootWord ? { [rootMfaHeader]: rootWord } : {}),
          },
        },
        resolve,
      );
      upstream.on('error', reject);
      if (req.readableEnded) upstream.end();
      else req.pipe(upstream);
    });
  }

  /** Keep-alive connections per leaf, each one a stream through its tunnel. */
  private agentFor(leaf: string): http.Agent {
    let agent = this.agents.get(leaf);
    if (!agent) {
      agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
      const dial = this.options.dial;
      (agent as unknown as { createConnection: unknown }).createConnection = (
        _options: unknown,
        done: (error: Error | null, socket?: Duplex) => void,
      ) => {
        dial(leaf).then(
          (stream) => done(null, asSocket(stream)),
          (error: Error) => done(error),
        );
        return undefined;
      };
      this.agents.set(leaf, agent);
    }
    return agent;
  }
}

function passedOn(headers: IncomingHttpHeaders, alsoDrop: string[] = []): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!dropped.has(name) && !alsoDrop.includes(name)) kept[name] = value;
  }
  return kept;
}

function sendError(res: ServerResponse, error: ApiError): void {
  const body = JSON.stringify(errorBody(error.code, error.message));
  res.writeHead(errorCatalogue[error.code], {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
