import {
  apiPaths,
  completeUserTokenRequestSchema,
  createUserTokenRequestSchema,
  registerChallengeRequestSchema,
  type CompleteUserTokenResponse,
  type RegisterChallenge,
  type UserToken,
  type UserTokenDetails,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import { requestContext, setSessionCookie } from '../auth/session-cookie.js';
import type { UsersAdminService } from '../users/users-admin.service.js';
import type { WebSessionService } from '../web-sessions/web-sessions.service.js';
import type { CompleteTokenService } from './complete-token.service.js';
import type { UserTokensService } from './user-tokens.service.js';

export interface UserTokensRoutesOptions {
  tokens: UserTokensService;
  completion: CompleteTokenService;
  sessions: WebSessionService;
  usersAdmin: Pick<UsersAdminService, 'assertMayIssueLink'>;
  loginRateLimit: { max: number; timeWindow: number };
}

type TokenParams = { Params: { tokenId: string } };

/** Invite and reset links (reference §1.12) and the token-scoped registration challenge. */
export async function userTokensRoutes(app: FastifyInstance, options: UserTokensRoutesOptions) {
  const { tokens, completion, sessions, usersAdmin, loginRateLimit } = options;

  // Access depends on the kind of link (an invite creates an account, a reset edits one), so the
  // route asks for a session and the service checks the verb.
  app.post(
    apiPaths.userTokens,
    { config: { access: 'authenticated' } },
    async (request): Promise<UserToken> => {
      const actor = actorOf(request);
      const body = parseInput(createUserTokenRequestSchema, request.body);
      await usersAdmin.assertMayIssueLink(body.name, body.type, actor);
      return tokens.create(body.name, body.type, body.ttl, actor.name, request.ip);
    },
  );

  app.get<TokenParams>(
    apiPaths.patterns.userToken,
    { config: { access: 'public', rateLimit: loginRateLimit } },
    async (request): Promise<UserTokenDetails> => tokens.details(request.params.tokenId),
  );

  app.put(
    apiPaths.userTokens,
    { config: { access: 'public', csrf: true, rateLimit: loginRateLimit } },
    async (request, reply): Promise<CompleteUserTokenResponse> => {
      const body = parseInput(completeUserTokenRequestSchema, request.body);
      const session = await completion.complete(body, requestContext(request));
      setSessionCookie(reply, session);
      return { ...sessions.response(session), recovery: null, privateKeyPolicyEnabled: false };
    },
  );

  app.post<TokenParams>(
    apiPaths.patterns.mfaTokenRegisterChallenge,
    {
      config: { access: 'public', optionalIdentity: true, csrf: true, rateLimit: loginRateLimit },
    },
    async (request): Promise<RegisterChallenge> => {
      const body = parseInput(registerChallengeRequestSchema, request.body);
      return tokens.registerChallenge(request.params.tokenId, body, request.identity?.user ?? null);
    },
  );
}
