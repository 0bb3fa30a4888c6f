import { apiPaths, terminalRequestSchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../../cluster-context.js';
import { accessDenied } from '../../../errors.js';
import {
  identifyByCredentials,
  sessionCookieName,
  type GuardDeps,
} from '../../../http/request-identity.js';
import { sameOrigin } from '../../../http/same-origin.js';
import { serveTerminalSocket } from '../../../modules/terminal/terminal-socket.js';
import { requesterOf, type TerminalService } from './terminal.service.js';

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
      const { terminals } = options;
      serveTerminalSocket(socket, {
        sessions: {
          request: terminalRequestSchema,
          start: (identity, params) =>
            terminals.start(requesterOf(identity), {
              serverId: params.server_id,
              login: params.login,
              size: params.term,
              command: params.command,
              traceId,
              remoteAddr: request.ip,
            }),
          joinable: (identity, sid, mode) => terminals.joinable(identity, sid, mode),
          guardParty: (identity, session, party) => terminals.guardParty(identity, session, party),
        },
        authenticate: (bearer) => identifyByCredentials(options.guard, cookie, bearer),
        params: request.query.params,
        pingIntervalMs: options.pingIntervalMs,
        log: (error, message) => request.log.error({ err: error, traceId }, message),
      });
    },
  );
}
