import { apiPaths } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { resolveClusterId } from '../../../cluster-context.js';
import { accessDenied } from '../../../errors.js';
import {
  identifyByCredentials,
  sessionCookieName,
  type GuardDeps,
} from '../../../http/request-identity.js';
import { serveTerminalSocket } from './terminal-socket.js';
import type { TerminalService } from './terminal.service.js';

interface TerminalRoutesOptions {
  terminals: TerminalService;
  guard: Pick<GuardDeps, 'sessions' | 'access'>;
  clusterName: string;
  pingIntervalMs: number;
}

type ConnectRequest = {
  Params: { clusterId: string };
  Querystring: { params?: string; traceparent?: string };
};

const traceparentPattern = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The terminal WebSocket (spec §7, reference §2.1). The upgrade itself is public: the caller
 * proves itself in-band (the cookie of the upgrade plus the bearer of the first frame), so no
 * secret ever sits in a URL or a log line. A page of another origin is refused before the upgrade.
 */
export async function terminalRoutes(app: FastifyInstance, options: TerminalRoutesOptions) {
  app.get<ConnectRequest>(
    apiPaths.patterns.terminalConnect,
    {
      websocket: true,
      config: { access: 'public' },
      preValidation: async (request) => {
        resolveClusterId(request.params.clusterId, options.clusterName);
        if (!sameOrigin(request)) throw accessDenied('access denied: foreign origin');
      },
    },
    (socket, request) => {
      const traceId = traceparentPattern.exec(request.query.traceparent ?? '')?.[1] ?? '';
      const cookie = request.cookies[sessionCookieName];
      serveTerminalSocket(socket, {
        terminals: options.terminals,
        authenticate: (bearer) => identifyByCredentials(options.guard, cookie, bearer),
        params: request.query.params,
        traceId,
        remoteAddr: request.ip,
        pingIntervalMs: options.pingIntervalMs,
        log: (error, message) => request.log.error({ err: error, traceId }, message),
      });
    },
  );
}

/**
 * Browsers always send Origin on WebSockets; it must name this host. Clients that are not
 * browsers send none and still need the bearer.
 */
function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
