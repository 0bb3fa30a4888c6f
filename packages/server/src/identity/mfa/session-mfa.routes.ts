import {
  apiPaths,
  mfaRequiredRequestSchema,
  sessionMfaChallengeRequestSchema,
  sessionMfaVerifyRequestSchema,
  type MfaChallenge,
  type MfaRequiredResponse,
  type SessionMfaVerifyResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { parseInput } from '../../http/parse-input.js';
import { SessionMfa, webSessionMfaSubject } from './session-mfa.js';
import type { SessionMfaGrants } from './session-mfa-grants.js';

interface SessionMfaRoutesOptions {
  sessionMfa: Pick<SessionMfa, 'challenge' | 'verify'>;
  grants: Pick<SessionMfaGrants, 'grant'>;
  clusterName: string;
}

const signedIn = { config: { access: 'authenticated' } } as const;

/**
 * The console's per-session MFA calls (docs/rbac.md, require_session_mfa):
 * - `POST mfa/required`: whether a session needs a check first (the reference's call);
 * - `POST mfa/session/challenge`: a challenge for a call the console makes itself (an
 *   application launch, a desktop, file transfers), bound to the caller's web session and the
 *   resource; a launch and a desktop take the answer as `mfa_response`;
 * - `POST mfa/session/verify`: the answer for `files:<serverId>`, which lets this web session's
 *   transfers to that server start for a minute (SessionMfaGrants).
 */
export async function sessionMfaRoutes(server: FastifyInstance, options: SessionMfaRoutesOptions) {
  const { sessionMfa, grants } = options;

  server.post<{ Params: { clusterId: string } }>(
    apiPaths.patterns.mfaRequired,
    signedIn,
    async (request): Promise<MfaRequiredResponse> => {
      resolveClusterId(request.params.clusterId, options.clusterName);
      parseInput(mfaRequiredRequestSchema, request.body);
      // The option holds for every resource the roles reach: any role asking is enough, and
      // so does a trusted root's rule for its user here.
      return { required: SessionMfa.requiredFor(request.identity!) };
    },
  );

  server.post(apiPaths.sessionMfaChallenge, signedIn, async (request): Promise<MfaChallenge> => {
    const identity = request.identity!;
    const { resource } = parseInput(sessionMfaChallengeRequestSchema, request.body);
    const subject = webSessionMfaSubject(identity.session.id, resource);
    return sessionMfa.challenge(identity.user, subject);
  });

  server.post(
    apiPaths.sessionMfaVerify,
    signedIn,
    async (request): Promise<SessionMfaVerifyResponse> => {
      const identity = request.identity!;
      const body = parseInput(sessionMfaVerifyRequestSchema, request.body);
      const { resource } = body;
      const subject = webSessionMfaSubject(identity.session.id, resource);
      const origin = request.headers.origin;
      const device = await sessionMfa.verify(identity.user, subject, body.mfa_response, origin);
      const expires = await grants.grant(identity.session.id, resource, device);
      return { expires: expires.toISOString() };
    },
  );
}
