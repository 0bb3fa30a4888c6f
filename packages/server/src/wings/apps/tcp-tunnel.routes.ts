import type {} from '@fastify/websocket';
import { apiPaths } from '@postern/contracts';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { connect } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import { badParameter, notFound } from '../../errors.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import type { LockWatcher } from '../../access-control/locks/lock-watcher.js';
import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAuditInBackground } from '../../modules/audit/emit.js';
import { isTcpApp, type AppRecord } from './app-kind.js';
import type { AppsService } from './apps.service.js';

interface TcpTunnelOptions {
  apps: AppsService;
  certAuth: Pick<CertRequestAuth, 'identify'>;
  access: Pick<AccessResolver, 'resolve'>;
  locks: Pick<LockWatcher, 'isLocked'>;
  audit: AuditStore;
  /** A connection to an app an agent serves, through that agent's tunnel. */
  dialAgentApp: (name: string) => Promise<Duplex>;
  /** How often a live tunnel asks again whether its user still may (locks, roles). */
  recheckMs?: number;
}

interface Tunnel {
  user: string;
  app: AppRecord;
  /** The access requests the user's certificate assumed. */
  accessRequests: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    tcpTunnel?: Tunnel;
  }
}

type NameParams = { Params: { name: string } };

/**
 * TCP apps (docs/apps.md, "TCP apps"): `postern proxy app NAME` opens one WebSocket per local
 * connection here, signed with the user's certificate from `postern login`; the proxy checks the
 * signature, the app's labels against the user's roles and locks before the upgrade (401/403/404
 * as HTTP answers), then relays bytes to the app's `tcp://host:port` until either side ends, a
 * lock falls on the user or their roles stop reaching the app.
 */
export async function tcpTunnelRoutes(server: FastifyInstance, options: TcpTunnelOptions) {
  const { apps, certAuth, audit } = options;
  const recheckMs = options.recheckMs ?? 2_000;

  const authorize = async (request: FastifyRequest<NameParams>) => {
    const identity = await certAuth.identify(request);
    const app = apps.get(request.params.name);
    if (
      !app ||
      !identity.roleSet.canAccess('app', { labels: app.metadata.labels, name: app.metadata.name })
    ) {
      throw notFound(`no application named ${request.params.name}`);
    }
    if (!isTcpApp(app))
      throw badParameter(`${app.metadata.name} is not a TCP app: open it in a browser`);
    request.tcpTunnel = { user: identity.user, app, accessRequests: identity.accessRequests };
  };

  server.get<NameParams>(
    apiPaths.patterns.appTcp,
    // The certificate is the credential: no web session, so the guard lets it through and the
    // check runs here, before the upgrade.
    { websocket: true, config: { access: 'public' }, preValidation: authorize },
    (socket: WebSocket, request) => {
      const tunnel = request.tcpTunnel;
      if (!tunnel) return socket.close(1011, 'not authorized');
      relay(socket, tunnel);
    },
  );

  /** The app's own listener, or for an agent's app a stream through that agent's tunnel. */
  function openUpstream(app: AppRecord): Duplex | Promise<Duplex> {
    if (app.source === 'agent') return options.dialAgentApp(app.metadata.name);
    const uri = new URL(app.spec.uri);
    return connect({ host: uri.hostname.replace(/^\[|\]$/g, ''), port: Number(uri.port) });
  }

  function relay(socket: WebSocket, tunnel: Tunnel): void {
    // Frames that arrive while the agent's tunnel opens wait in the WebSocket stream's buffer.
    const stream = createWebSocketStream(socket);
    Promise.resolve()
      .then(() => openUpstream(tunnel.app))
      .then(
        (upstream) => join(socket, stream, upstream, tunnel),
        () => {
          stream.destroy();
          socket.close(1011, 'the app cannot be reached');
        },
      );
  }

  function join(
    socket: WebSocket,
    stream: Duplex,
    upstream: Duplex,
    { user, app, accessRequests }: Tunnel,
  ) {
    const sid = randomBytes(16).toString('hex');
    emitAuditInBackground(audit, 'T2007I', {
      user,
      sid,
      app_name: app.metadata.name,
      app_uri: app.spec.uri,
    });
    const recheck = setInterval(() => {
      const resolved = options.access.resolve(user, [], accessRequests);
      const allowed =
        !options.locks.isLocked({ user, roles: resolved.roles }) &&
        resolved.roleSet.canAccess('app', { labels: app.metadata.labels, name: app.metadata.name });
      if (!allowed) end('access to the app was withdrawn');
    }, recheckMs);
    recheck.unref();
    let ended = false;
    const end = (reason: string) => {
      if (ended) return;
      ended = true;
      clearInterval(recheck);
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
}
