import { apiPaths, databaseConsoleRequestSchema } from '@postern/contracts';
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
import { dbConsoleSessions, type DbConsoleDeps } from './db-console.js';

interface DbConsoleRoutesOptions extends DbConsoleDeps {
  guard: Pick<GuardDeps, 'sessions' | 'access'>;
  pingIntervalMs: number;
}

type ConsoleRequest = {
  Params: { clusterId: string; database: string };
  Querystring: { params?: string };
};

/**
 * The SQL console's WebSocket: the terminal protocol (in-band bearer, envelope frames) with a
 * database user and name in `params` instead of a server and login.
 */
export async function dbConsoleRoutes(app: FastifyInstance, options: DbConsoleRoutesOptions) {
  app.get<ConsoleRequest>(
    apiPaths.patterns.databaseConsole,
    {
      websocket: true,
      config: { access: 'public' },
      preValidation: async (request) => {
        resolveClusterId(request.params.clusterId, options.clusterName);
        if (!sameOrigin(request)) throw accessDenied('access denied: foreign origin');
      },
    },
    (socket, request) => {
      const cookie = request.cookies[sessionCookieName];
      serveTerminalSocket(socket, {
        sessions: dbConsoleSessions(
          options,
          request.params.database,
          request.ip,
          databaseConsoleRequestSchema,
        ),
        authenticate: (bearer) => identifyByCredentials(options.guard, cookie, bearer),
        params: request.query.params,
        pingIntervalMs: options.pingIntervalMs,
        log: (error, message) => request.log.error({ err: error }, message),
      });
    },
  );
}
