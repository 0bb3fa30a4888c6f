import { apiPaths, type ActiveSessionList } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import { visibleActiveSessions } from './active-sessions.service.js';
import type { SessionHub } from './session-hub.js';

/**
 * `postern sessions ls` (docs/moderated-sessions.md): the console's Active Sessions, signed with
 * the user's certificate instead of a web session; the same ACL (activeSessions list) and the
 * same per-session visibility. Public for the guard: the signature authenticates.
 */
export async function cliActiveSessionsRoutes(
  app: FastifyInstance,
  { hub, certAuth }: { hub: SessionHub; certAuth: Pick<CertRequestAuth, 'identifyAllowed'> },
) {
  app.get(
    apiPaths.cliActiveSessions,
    { config: { access: 'public' } },
    async (request): Promise<ActiveSessionList> => {
      const { user, roleSet } = await certAuth.identifyAllowed(request, 'activeSessions', 'list');
      return visibleActiveSessions(hub, { user, roleSet });
    },
  );
}
