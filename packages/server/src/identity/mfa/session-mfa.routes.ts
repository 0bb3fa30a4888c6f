import { apiPaths, sessionMfaChallengeRequestSchema, type MfaChallenge } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../http/parse-input.js';
import { webSessionMfaSubject, type SessionMfa } from './session-mfa.js';

/**
 * `POST mfa/session/challenge`: a per-session MFA challenge for a call the console makes itself
 * (an application launch), bound to the caller's web session and the resource; the call takes
 * the answer as `mfa_response` (docs/rbac.md, require_session_mfa).
 */
export async function sessionMfaRoutes(
  server: FastifyInstance,
  options: { sessionMfa: Pick<SessionMfa, 'challenge'> },
) {
  server.post(
    apiPaths.sessionMfaChallenge,
    { config: { access: 'authenticated' } },
    async (request): Promise<MfaChallenge> => {
      const identity = request.identity!;
      const { resource } = parseInput(sessionMfaChallengeRequestSchema, request.body);
      const subject = webSessionMfaSubject(identity.session.id, resource);
      return options.sessionMfa.challenge(identity.user, subject);
    },
  );
}
