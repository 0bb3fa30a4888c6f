import { appAuthPath, appJwtHeader, appSessionCookie } from '@postern/contracts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { hostOf, type HostHandler } from '../../http/host-routes.js';
import type { AppJwtSigner } from './app-jwt.js';
import type { AppRecord } from './app-kind.js';
import type { AppAt, AppIdentity, AppSessionsService } from './app-sessions.service.js';
import type { LeafReachPoint } from '../../modules/trusted-clusters/leaf-reach.js';
import type { LeafAppAgents } from './leaf/leaf-app-agents.js';
import { leafAppTarget } from './leaf/leaf-app-target.js';
import type { AppRequestAudit } from './app-request-audit.js';
import type { AppsService } from './apps.service.js';
import type { AppProxy, ProxyTarget } from './proxy/app-proxy.js';
import { readCookie } from '../../http/read-cookie.js';
import { errorPage, setCookie } from './http-bits.js';

export interface AppHostDeps {
  apps: AppsService;
  sessions: AppSessionsService;
  jwt: AppJwtSigner;
  proxy: AppProxy;
  audit: AppRequestAudit;
  /** The console's base URL, where people sign in and launch. */
  consoleUrl: () => string;
  clusterName: string;
  /** The port browsers use for app hosts: the console's public port ('' for 443). */
  publicPort: () => string;
  /** A connection to an app an agent serves, through that agent's tunnel. */
  dialAgentApp: (name: string) => Promise<Duplex>;
  /** A trusted leaf's apps, for a root's app sessions on them (leaf/). */
  leafReach: Pick<LeafReachPoint, 'side'>;
  leafAgents: LeafAppAgents;
}

const noAppHere = 'There is no application at this address.';

/**
 * On the origin of a leaf's app served here: which leaf, so a visitor whose session ended is
 * sent to sign in for that app again. Not a credential; kept a month.
 */
const leafHintCookie = '__Host-postern-app-cluster';
const leafHintTtlMs = 30 * 24 * 3_600_000;
/** Our cookies on an app's origin: credentials and hints of ours, never the app's. */
const proxyCookies = [appSessionCookie, leafHintCookie];

/** Headers a client could use to claim an identity; they never reach an app. */
export const identityHeaders = [appJwtHeader, 'x-postern-user', 'x-forwarded-user'];

/**
 * Requests for app host names (docs/apps.md): the cookie exchange at `/x-postern-auth`, then
 * every request and upgrade of a signed-in browser, forwarded with the user's signed identity.
 * Hosts under the proxy's name that are no app get a 404 page, never the console.
 */
export class AppHost implements HostHandler {
  /** Upgraded sockets per app session cookie, closed when the session ends. */
  private readonly open = new Map<string, { at: AppAt; sockets: Set<Duplex> }>();
  private sweep: ReturnType<typeof setInterval> | undefined;
  /** Who each `postern proxy app` connection is, for the HTTP server that reads its requests. */
  private readonly tunnelled = new WeakMap<Duplex, { app: AppRecord; identity: AppIdentity }>();
  private tunnelServer: Server | undefined;

  constructor(private readonly deps: AppHostDeps) {}

  /**
   * Serves the HTTP requests arriving on `connection` (a `postern proxy app` tunnel to an HTTP
   * app, its user authenticated by certificate) as the browser's are served: the same
   * forwarding, identity JWT, header rules and per-request audit, without a cookie. Returns
   * what to call as the tunnel ends: its requests' audit is written before its end event.
   */
  serveTunnel(connection: Duplex, app: AppRecord, identity: AppIdentity): () => void {
    this.tunnelled.set(connection, { app, identity });
    this.tunnelServer ??= this.createTunnelServer();
    this.tunnelServer.emit('connection', connection);
    return () => this.deps.audit.flush(identity.sid);
  }

  private createTunnelServer(): Server {
    const server = createServer({ requestTimeout: 0, headersTimeout: 60_000 });
    const whose = (req: IncomingMessage) => this.tunnelled.get(req.socket);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const tunnel = whose(req);
      if (!tunnel) return errorPage(res, 404, noAppHere);
      this.deps.proxy.forward(req, res, {
        ...this.target(tunnel.app, tunnel.identity),
        clientOrigin: listenerOrigin(req),
      });
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const tunnel = whose(req);
      if (!tunnel) return socket.destroy();
      this.deps.proxy.upgrade(req, socket, head, this.target(tunnel.app, tunnel.identity));
    });
    // A client's malformed request ends its connection only, as on the listener.
    server.on('clientError', (_error, socket: Duplex) => socket.destroy());
    return server;
  }

  claims(host: string): boolean {
    const proxyHost = new URL(this.deps.consoleUrl()).hostname.toLowerCase();
    if (host === proxyHost) return false;
    return host.endsWith(`.${proxyHost}`) || this.deps.apps.byHost(host) !== undefined;
  }

  request(req: IncomingMessage, res: ServerResponse): void {
    void this.serve(req, res).catch(() => {
      if (!res.headersSent) errorPage(res, 500, 'Something went wrong on the way to the app.');
      else res.destroy();
    });
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    void this.serveUpgrade(req, socket, head).catch(() => socket.destroy());
  }

  /** Checks the sessions with open WebSockets every `intervalMs`; ended ones lose them. */
  startSweeping(intervalMs = 2_000): void {
    this.sweep ??= setInterval(() => void this.closeEnded(), intervalMs);
    this.sweep.unref();
  }

  stop(): void {
    clearInterval(this.sweep);
    this.sweep = undefined;
    for (const { sockets } of this.open.values()) for (const socket of sockets) socket.destroy();
    this.open.clear();
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = this.where(req);
    const url = new URL(req.url ?? '/', 'https://app.invalid');
    if (url.pathname === appAuthPath) return this.exchange(req, res, at, url);
    // TRACE would echo the request back, identity JWT and all: nothing an app needs from us.
    if (req.method === 'TRACE') return errorPage(res, 405, 'Method not allowed.');
    const cookie = readCookie(req, appSessionCookie);
    const identity = await this.deps.sessions.authenticate(cookie, at);
    if (identity) return this.deps.proxy.forward(req, res, this.targetFor(at, identity));
    if (at.local) {
      const host = this.deps.apps.publicHostOf(at.local);
      return this.toSignIn(req, res, host, this.deps.clusterName);
    }
    // A leaf's app served here, whose session ended: its cluster is remembered on its origin.
    const leaf = readCookie(req, leafHintCookie);
    if (leaf && this.deps.leafReach.side?.isLeaf(leaf))
      return this.toSignIn(req, res, at.host, leaf);
    errorPage(res, 404, noAppHere);
  }

  private async serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const at = this.where(req);
    const cookie = readCookie(req, appSessionCookie);
    const identity = await this.deps.sessions.authenticate(cookie, at);
    if (!identity || !cookie) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const entry = this.open.get(cookie) ?? { at, sockets: new Set<Duplex>() };
    this.open.set(cookie, entry);
    entry.sockets.add(socket);
    socket.once('close', () => {
      entry.sockets.delete(socket);
      if (entry.sockets.size === 0) this.open.delete(cookie);
    });
    this.deps.proxy.upgrade(req, socket, head, this.targetFor(at, identity));
  }

  /** `/x-postern-auth?state=...&path=...`: the launcher's state becomes this origin's cookie. */
  private async exchange(
    req: IncomingMessage,
    res: ServerResponse,
    at: AppAt,
    url: URL,
  ): Promise<void> {
    if (req.method !== 'GET') return errorPage(res, 405, 'Method not allowed.');
    const session = await this.deps.sessions.exchange(url.searchParams.get('state') ?? '', at);
    if (!session) {
      return errorPage(
        res,
        403,
        'This link has expired or was already used. Open the application again from Postern.',
      );
    }
    setCookie(res, appSessionCookie, session.cookie, session.expires);
    if (session.leaf) {
      setCookie(res, leafHintCookie, session.leaf, new Date(Date.now() + leafHintTtlMs));
    }
    res.writeHead(302, {
      location: localPath(url.searchParams.get('path')),
      'cache-control': 'no-store',
    });
    res.end();
  }

  /** No session: to the console's launcher for this app, which signs in first if it must. */
  private toSignIn(req: IncomingMessage, res: ServerResponse, host: string, cluster: string): void {
    const launch = new URL(
      `/web/launch/${encodeURIComponent(host)}/${encodeURIComponent(cluster)}/${encodeURIComponent(host)}`,
      this.deps.consoleUrl(),
    );
    launch.searchParams.set('path', localPath(req.url ?? '/'));
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.writeHead(302, { location: launch.toString(), 'cache-control': 'no-store' });
      res.end();
      return;
    }
    // A script's POST cannot follow a sign-in: it is told, and the page's next load signs in.
    errorPage(res, 401, 'Your session with this application has ended. Reload the page.');
  }

  /** The request's host, and this cluster's app there if any (a leaf's is the cookie's to say). */
  private where(req: IncomingMessage): AppAt {
    const host = hostOf(req) ?? '';
    return { host, local: host ? this.deps.apps.byHost(host) : undefined };
  }

  /** Where the session's requests go: this cluster's app, or through tunnels to a leaf's. */
  private targetFor(at: AppAt, identity: AppIdentity): ProxyTarget {
    const { leaf } = identity;
    const reach = this.deps.leafReach.side;
    if (!leaf) return this.target(at.local!, identity);
    if (!reach) throw new Error('a leaf app session on a cluster with no trusted leaves');
    return leafAppTarget(
      { ...identity, leaf },
      { host: at.host, port: this.deps.publicPort() },
      {
        reach,
        agents: this.deps.leafAgents,
        stripHeaders: identityHeaders,
        stripCookies: proxyCookies,
        onRequestDone: (request) => {
          this.deps.audit.record(leaf.app, identity, request);
          this.deps.sessions.touched(identity.sid);
        },
      },
    );
  }

  private target(app: AppRecord, identity: AppIdentity): ProxyTarget {
    const publicHost = this.deps.apps.publicHostOf(app);
    const publicPort = this.deps.publicPort();
    const jwt = this.deps.jwt.token({
      user: identity.user,
      roles: identity.roles,
      traits: identity.traits,
      audience: `https://${publicHost}${publicPort ? `:${publicPort}` : ''}`,
      sessionEndsMs: identity.expiresMs,
    });
    const setHeaders: Record<string, string> = {};
    for (const { name, value } of app.spec.rewrite.headers) {
      setHeaders[name.toLowerCase()] = expandTraits(value, identity);
    }
    setHeaders[appJwtHeader] = jwt;
    return {
      upstream: new URL(app.spec.uri),
      insecureSkipVerify: app.spec.insecure_skip_verify,
      publicHost,
      publicPort,
      setHeaders,
      stripHeaders: identityHeaders,
      // The app never sees the proxy's own session.
      stripCookies: proxyCookies,
      redirectHosts: app.spec.rewrite.redirect,
      // An agent's app is reached from the agent's network only: each connection is a dial.
      ...(app.source === 'agent'
        ? { connect: () => this.deps.dialAgentApp(app.metadata.name) }
        : {}),
      onRequestDone: (request) => {
        this.deps.audit.record(app.metadata.name, identity, request);
        this.deps.sessions.touched(identity.sid);
      },
    };
  }

  private async closeEnded(): Promise<void> {
    for (const [cookie, { at, sockets }] of [...this.open]) {
      if (await this.deps.sessions.stillValid(cookie, at)) continue;
      for (const socket of sockets) socket.destroy();
      this.open.delete(cookie);
    }
  }
}

/**
 * `http://<Host>`: the `postern proxy app` listener the client talks plain HTTP to, named as the
 * client named it. A Host that is not a plain `name[:port]` leaves redirects on the public host.
 */
function listenerOrigin(req: IncomingMessage): string | undefined {
  const host = req.headers.host ?? '';
  return /^([a-z\d.-]+|\[[\da-f:.]+\])(:\d{1,5})?$/i.test(host) ? `http://${host}` : undefined;
}

/** A path on the app's own origin: anything else (`//evil`, `https://...`) becomes `/`. */
function localPath(path: string | null): string {
  if (!path || !path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return '/';
  return path;
}

/**
 * `{{internal.logins}}`, `{{external.team}}`: the first value of the user's trait, as the
 * reference system fills rewrite headers; a trait the user lacks leaves the value empty.
 */
function expandTraits(value: string, identity: AppIdentity): string {
  return value.replace(/\{\{\s*(internal|external)\.([\w.-]+)\s*\}\}/g, (_all, _scope, name) =>
    (identity.traits[name as string] ?? []).join(','),
  );
}
