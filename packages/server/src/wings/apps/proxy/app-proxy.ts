import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { forwardRequest, type ForwardContext } from './forward.js';
import type { ProxyTarget } from './proxy-target.js';
import { upgradeRequest } from './upgrade.js';
import { UpstreamPool } from './upstream-pool.js';

export type { ProxyTarget } from './proxy-target.js';

export interface AppProxyOptions {
  /** Connections per upstream origin; requests beyond wait for one (default 128). */
  maxSocketsPerUpstream?: number;
  /** How long the app may take to send its response head (default 60 s): then 504. */
  upstreamTimeoutMs?: number;
}

/**
 * The HTTP reverse proxy in front of applications: forwards a browser's request to the app named
 * by a ProxyTarget and streams the answer back, fitting headers, redirects and cookies to the
 * host the browser sees. It knows nothing of sessions or routing: the caller has decided who may
 * reach which app, and says so in the target.
 *
 * Beside it: `forward.ts` and `upgrade.ts` (one exchange each), `request-check.ts` (what is
 * refused), `request-headers.ts` and `response-headers.ts` (over `headers.ts`),
 * `location-rewrite.ts`, `set-cookie-rewrite.ts`, `upstream-request.ts` and `upstream-pool.ts`.
 */
export class AppProxy {
  private readonly context: ForwardContext;

  constructor(options: AppProxyOptions = {}) {
    this.context = {
      pool: new UpstreamPool(options.maxSocketsPerUpstream ?? 128),
      upstreamTimeoutMs: options.upstreamTimeoutMs ?? 60_000,
      refusedConnections: new WeakSet(),
    };
  }

  /** Forwards one HTTP request, streaming both bodies. Never buffers a body. */
  forward(req: IncomingMessage, res: ServerResponse, target: ProxyTarget): void {
    forwardRequest(req, res, target, this.context);
  }

  /** Forwards a WebSocket (or any) Upgrade request; pipes the two sockets once the upstream answers 101. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: ProxyTarget): void {
    upgradeRequest(req, socket, head, target, this.context);
  }

  /** Closes the keep-alive pools. */
  close(): void {
    this.context.pool.close();
  }
}
