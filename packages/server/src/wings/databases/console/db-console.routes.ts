import { apiPaths, databaseConsoleRequestSchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { GuardDeps } from '../../../http/request-identity.js';
import type { SessionMfa } from '../../../identity/mfa/session-mfa.js';
import {
  terminalSocketRoute,
  type TerminalRouteOptions,
} from '../../../modules/terminal/terminal-route.js';
import { dbConsoleSessions, type DbConsoleDeps } from './db-console.js';

interface DbConsoleRoutesOptions extends DbConsoleDeps {
  guard: Pick<GuardDeps, 'sessions' | 'access'>;
  sessionMfa?: Pick<SessionMfa, 'challenge' | 'verify'>;
  pingIntervalMs: number;
  resumes?: TerminalRouteOptions['resumes'];
  relayResume?: TerminalRouteOptions['relayResume'];
}

/**
 * The SQL console's WebSocket: the terminal protocol (in-band bearer, envelope frames) with a
 * database user and name in `params` instead of a server and login.
 */
export async function dbConsoleRoutes(app: FastifyInstance, options: DbConsoleRoutesOptions) {
  terminalSocketRoute(app, apiPaths.patterns.databaseConsole, options, (request) =>
    dbConsoleSessions(
      options,
      request.params.database ?? '',
      request.ip,
      databaseConsoleRequestSchema,
    ),
  );
}
