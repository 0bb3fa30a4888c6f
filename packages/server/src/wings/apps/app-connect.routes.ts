import type {} from '@fastify/websocket';
import { apiPaths } from '@postern/contracts';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { connect } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import { accessDenied, notFound } from '../../errors.js';
import type { TunnelCallers } from '../../identity/cli-login/tunnel-caller.js';
import { resolveClusterId } from '../../cluster-context.js';
import { lockMessage, marksOf, type LockWatcher } from '../../access-control/locks/lock-watcher.js';
import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAuditInBackground } from '../../modules/audit/emit.js';
import { duplexPair } from '../../net/duplex-pair.js';
import type { AppHost } from './app-host.js';
import type { AppSessionTracking } from './app-session-tracking.js';
import { isTcpApp, type AppRecord } from './app-kind.js';
import type { AppIdentity } from './app-sessions.service.js';
import type { AppsService } from './apps.service.js';

interface AppConnectOptions {
  apps: AppsService;
  /** Who opens a tunnel: the CLI's certificate, or a root's forwarded session. */
  callers: Pick<TunnelCallers, 'identify'>;
  clusterName: string;
  access: Pick<AccessResolver, 'resolve'>;
  locks: Pick<LockWatcher, 'lockFor'>;
  audit: AuditStore;
  /** A connection to an app an agent serves, through that agent's tunnel. */
  dialAgentApp: (name: string) => Promise<Duplex>;
  /** Serves an HTTP app's requests arriving on a tunnel, as the browser's are served. */
  httpApps: Pick<AppHost, 'serveTunnel'>;
  /** Each tunnelled connection is a session on Active Sessions, as a browser's app session is. */
  tracking: Pick<AppSessionTracking, 'opened' | 'closed'>;
  /** How often a live tunnel asks again whether its user still may (locks, roles). */
  recheckMs?: number;
}

/** Where a tunnel's bytes go, and what to tell when it ends. */
interface Upstream {
  stream: Duplex;
  ended?: () => void;
}

interface Tunnel {
  user: string;
  app: AppRecord;
  /** The access requests the user's certificate assumed. */
  accessRequests: string[];
  /** See TunnelCaller.sessionRoles: what the rechecks resolve access from. */
  sessionRoles: readonly string[];
  /** Who the app's identity JWT names, for an HTTP app. */
  roles: string[];
  traits: Record<string, string[]>;
  expiresMs: number;
  clientAddress: string;
  /** The MFA device the credential was signed in with: an `mfa_device` lock ends the tunnel. */
  mfaDevice?: string;
  /** The device that answered its certificate's per-session check: the same. */
  sessionMfaDevice?: string;
  /** A bot's certificate's instance: a `bot_instance` lock ends the tunnel. */
  botInstance?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    appTunnel?: Tunnel;
  }
}

type TunnelParams = { Params: { name: string; clusterId?: string } };

/**
 * `postern proxy app NAME` (docs/apps.md, "TCP apps" and "HTTP apps from the command line") opens
 * one WebSocket per local connection here, signed with the user's certificate from `postern
 * login` (or, for a trusted root's user, with the leaf session this cluster granted them:
 * tunnel-caller.ts); the proxy checks the credential, the app's labels against the user's roles and locks
 * before the upgrade (401/403/404 as HTTP answers), then relays the connection until either side
 * ends, a lock falls on the user or their roles stop reaching the app: to a TCP app's
 * `tcp://host:port` as bytes, and to an HTTP app through the app proxy, which reads its requests
 * as it reads a browser's.
 */
export async function appConnectRoutes(server: FastifyInstance, options: AppConnectOptions) {
  const { apps, callers, audit } = options;
  const recheckMs = options.recheckMs ?? 2_000;

  const authorize = async (request: FastifyRequest<TunnelParams>) => {
    const { clusterId } = request.params;
    if (clusterId !== undefined) resolveClusterId(clusterId, options.clusterName);
    const caller = await callers.identify(request);
    const app = apps.get(request.params.name);
    if (
      !app ||
      !caller.roleSet.canAccess('app', { labels: app.metadata.labels, name: app.metadata.name })
    ) {
      throw notFound(`no application named ${request.params.name}`);
    }
    const unchecked = await caller.mfaRefusal(`app:${app.metadata.name}`, 'postern proxy app');
    if (unchecked) throw accessDenied(unchecked);
    request.appTunnel = {
      user: caller.user,
      app,
      accessRequests: caller.accessRequests,
      sessionRoles: caller.sessionRoles,
      roles: caller.roles,
      traits: caller.traits,
      expiresMs: caller.expiresMs,
      clientAddress: request.ip,
      ...(caller.mfaDevice ? { mfaDevice: caller.mfaDevice } : {}),
      ...(caller.sessionMfaDevice ? { sessionMfaDevice: caller.sessionMfaDevice } : {}),
      ...(caller.botInstance ? { botInstance: caller.botInstance } : {}),
    };
  };

  const opened = (socket: WebSocket, request: FastifyRequest) => {
    const tunnel = request.appTunnel;
    if (!tunnel) return socket.close(1011, 'not authorized');
    relay(socket, tunnel);
  };
  // `tcpapps/NAME`, or `sites/CLUSTER/tcpapps/NAME` (`--cluster`, a root forwarding for its user).
  for (const path of [apiPaths.patterns.appTcp, apiPaths.patterns.appTcpIn]) {
    // The credential is checked here, before the upgrade: the guard lets the route through.
    server.get<TunnelParams>(
      path,
      { websocket: true, config: { access: 'public' }, preValidation: authorize },
      opened,
    );
  }

  /**
   * An HTTP app: one end of an in-memory connection whose other end the app proxy serves. A TCP
   * app: its own listener, or for an agent's app a stream through that agent's tunnel.
   */
  async function openUpstream(tunnel: Tunnel, sid: string): Promise<Upstream> {
    const { app } = tunnel;
    if (!isTcpApp(app)) {
      const [client, server] = duplexPair(tunnel.clientAddress);
      const ended = options.httpApps.serveTunnel(server, app, identityOf(tunnel, sid));
      return { stream: client, ended };
    }
    if (app.source === 'agent') return { stream: await options.dialAgentApp(app.metadata.name) };
    const uri = new URL(app.spec.uri);
    return {
      stream: connect({ host: uri.hostname.replace(/^\[|\]$/g, ''), port: Number(uri.port) }),
    };
  }

  function relay(socket: WebSocket, tunnel: Tunnel): void {
    // Frames that arrive while the agent's tunnel opens wait in the WebSocket stream's buffer.
    const stream = createWebSocketStream(socket);
    const sid = randomBytes(16).toString('hex');
    Promise.resolve()
      .then(() => openUpstream(tunnel, sid))
      .then(
        (upstream) => join(socket, stream, upstream, tunnel, sid),
        () => {
          stream.destroy();
          socket.close(1011, 'the app cannot be reached');
        },
      );
  }

  function join(
    socket: WebSocket,
    stream: Duplex,
    { stream: upstream, ended: tunnelEnded }: Upstream,
    tunnel: Tunnel,
    sid: string,
  ) {
    const { user, app, accessRequests, sessionRoles } = tunnel;
    emitAuditInBackground(audit, 'T2007I', {
      user,
      sid,
      app_name: app.metadata.name,
      app_uri: app.spec.uri,
    });
    const tracked = track(tunnel, sid);
    const recheck = setInterval(() => {
      const resolved = options.access.resolve(user, sessionRoles, accessRequests);
      // A lock, or lock: strict's fence while the lock view is stale.
      const roles = resolved.roles;
      const lock = options.locks.lockFor({ user, roles, ...marksOf(tunnel) });
      if (lock) return end(`locked: ${lockMessage(lock)}`);
      const target = { labels: app.metadata.labels, name: app.metadata.name };
      if (!resolved.roleSet.canAccess('app', target)) end('access to the app was withdrawn');
    }, recheckMs);
    recheck.unref();
    let ended = false;
    const end = (reason: string) => {
      if (ended) return;
      ended = true;
      clearInterval(recheck);
      tunnelEnded?.();
      // After its write, so a short connection's tracker cannot outlive it.
      void tracked.then(() => options.tracking.closed(sid)).catch(() => undefined);
      emitAuditInBackground(audit, 'T2011I', { user, sid, app_name: app.metadata.name, reason });
      if (socket.readyState !== socket.OPEN) {
        upstream.destroy();
        return;
      }
      // The client hears why (a close frame) before the app's side goes.
      socket.close(1000, reason.slice(0, 120));
      const timer = setTimeout(() => socket.terminate(), 2_000);
      socket.once('close', () => {
        clearTimeout(timer);
        upstream.destroy();
      });
    };
    pipeline(stream, upstream, (error) => end(error ? 'the connection failed' : 'closed'));
    pipeline(upstream, stream, (error) => end(error ? 'the app closed the connection' : 'closed'));
    socket.once('close', () => end('closed'));
  }

  /** Lists the connection on Active Sessions until it ends, or its certificate expires. */
  function track({ user, roles, app, expiresMs }: Tunnel, sid: string): Promise<void> {
    const created = new Date().toISOString();
    const expires = new Date(expiresMs).toISOString();
    return options.tracking
      .opened(
        { sid, user, roles, created, expires },
        { name: app.metadata.name, addr: apps.publicHostOf(app) },
      )
      .catch(() => undefined);
  }
}

function identityOf(tunnel: Tunnel, sid: string): AppIdentity {
  const { user, roles, traits, expiresMs } = tunnel;
  return { sid, user, roles, traits, expiresMs };
}
