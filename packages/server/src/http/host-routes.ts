import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { routeTlsConnection, type TlsRoutes } from './tls-routes.js';
import { acceptProxied, reportTlsPeer, TrustedProxies } from '../net/proxy-protocol.js';

/**
 * Requests for host names that are not the console's: an application's `<name>.<proxy host>`
 * (docs/apps.md). Such a request never reaches Fastify (the console, the API, its hooks, its
 * body parsing): a handler that claims the `Host` answers it whole, upgrades included.
 */
export interface HostHandler {
  /**
   * Whether requests for `host` (lower-case, without port) are this handler's; a handler may
   * look at the request too (the path of a leaf cluster's API, which the root forwards).
   */
  claims(host: string, req: IncomingMessage): boolean;
  request(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** The handlers by host, filled by the wings as they build, consulted per request. */
export class HostRoutes {
  private readonly handlers: HostHandler[] = [];

  add(handler: HostHandler): void {
    this.handlers.push(handler);
  }

  /** The handler claiming this request's host, if any. */
  match(req: IncomingMessage): HostHandler | undefined {
    if (this.handlers.length === 0) return undefined;
    const host = hostOf(req);
    if (!host) return undefined;
    return this.handlers.find((handler) => handler.claims(host, req));
  }
}

/** The request's host name: `Host` without its port, lower-case, without a trailing dot. */
export function hostOf(req: IncomingMessage): string | undefined {
  const header = req.headers.host;
  if (!header) return undefined;
  // [v6]:port, or name:port, or name.
  const host = header.startsWith('[')
    ? header.slice(0, header.indexOf(']') + 1)
    : header.split(':')[0]!;
  return host.toLowerCase().replace(/\.$/, '') || undefined;
}

/** Node's server timeouts as Fastify sets them on servers it creates itself. */
const keepAliveTimeoutMs = 72_000;

/**
 * Fastify's `serverFactory`: the same HTTP(S) server Fastify would make, with requests and
 * upgrades for claimed hosts handed to their handler before Fastify sees them, and TLS
 * connections for claimed server names to theirs before TLS starts. Both are routed by wrapping
 * `emit`, since @fastify/websocket listens for every 'upgrade' itself.
 */
export function hostRoutingServerFactory(
  routes: HostRoutes,
  options: { https?: ServerOptions; http?: object },
  tlsRoutes?: TlsRoutes,
  trusted: TrustedProxies = new TrustedProxies([]),
) {
  return (fastifyHandler: (req: IncomingMessage, res: ServerResponse) => void) => {
    const dispatch = (req: IncomingMessage, res: ServerResponse) => {
      const handler = routes.match(req);
      if (handler) handler.request(req, res);
      else fastifyHandler(req, res);
    };
    const server = options.https
      ? createHttpsServer(options.https, dispatch)
      : createHttpServer(options.http ?? {}, dispatch);
    server.keepAliveTimeout = keepAliveTimeoutMs;
    server.requestTimeout = 0;
    server.setTimeout(0);
    const emit = server.emit.bind(server) as (event: string, ...args: unknown[]) => boolean;
    const routeConnection = (socket: Socket) => {
      // A TLS server name a wing claims takes the connection before TLS starts here.
      if (options.https && tlsRoutes) {
        routeTlsConnection(socket, tlsRoutes, (routed) => emit('connection', routed));
      } else {
        emit('connection', socket);
      }
    };
    server.emit = ((event: string, ...args: unknown[]) => {
      if (event === 'connection') {
        // From a trusted balancer, a PROXY protocol header first says whom the connection is for.
        acceptProxied(args[0] as Socket, trusted, routeConnection);
        return true;
      }
      if (event === 'secureConnection') reportTlsPeer(args[0] as Socket);
      if (event === 'upgrade') {
        const [req, socket, head] = args as [IncomingMessage, Duplex, Buffer];
        const handler = routes.match(req);
        if (handler) {
          handler.upgrade(req, socket, head);
          return true;
        }
      }
      return emit(event, ...args);
    }) as typeof server.emit;
    return server;
  };
}
