import {
  apiPaths,
  createSessionRequestSchema,
  mfaLoginBeginRequestSchema,
  mfaLoginFinishRequestSchema,
  okBody,
  renewSessionRequestSchema,
  type MfaChallenge,
  type RenewSessionRequest,
  type SessionResponse,
} from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notAuthenticated } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import type {
  SessionChanges,
  WebSession,
  WebSessionService,
} from '../web-sessions/web-sessions.service.js';
import type { AccessRequestsService } from '../../access-control/access-requests/access-requests.service.js';
import type { LoginService } from './login.service.js';
import { clearSessionCookie, requestContext, setSessionCookie } from './session-cookie.js';

/**
 * The access requests a renewal leaves the session with: `requestId` adds one (the user's own,
 * approved and not expired: checked here), `switchback` drops them all; otherwise unchanged.
 */
async function assumedAfter(
  body: RenewSessionRequest,
  session: WebSession,
  user: string,
  accessRequests: Pick<AccessRequestsService, 'assumable'>,
): Promise<SessionChanges | undefined> {
  if (body.switchback) return { accessRequests: [] };
  if (!body.requestId) return undefined;
  const request = await accessRequests.assumable(body.requestId, user);
  const kept = (session.accessRequests ?? []).filter((id) => id !== request.metadata.name);
  return { accessRequests: [...kept, request.metadata.name] };
}

export interface AuthRoutesOptions {
  login: LoginService;
  sessions: WebSessionService;
  /** Which access request a renewal may assume. */
  accessRequests: Pick<AccessRequestsService, 'assumable'>;
  /** Per-address limit on the sign-in calls (@fastify/rate-limit route config). */
  loginRateLimit: { max: number; timeWindow: number };
}

const identityOf = (request: FastifyRequest) => {
  if (!request.identity) throw notAuthenticated();
  return request.identity;
};

/** Sign-in, renewal, sign-out and the status poll (spec §7 Session, reference §1.2). */
export async function authRoutes(app: FastifyInstance, options: AuthRoutesOptions) {
  const { login, sessions } = options;
  const signIn = { access: 'public', csrf: true, rateLimit: options.loginRateLimit } as const;

  app.post(apiPaths.webSession, { config: signIn }, async (request, reply) => {
    const body = parseInput(createSessionRequestSchema, request.body);
    const session = await login.passwordLogin(body, requestContext(request));
    setSessionCookie(reply, session);
    return sessions.response(session) satisfies SessionResponse;
  });

  app.post(apiPaths.mfaLoginBegin, { config: signIn }, async (request): Promise<MfaChallenge> => {
    const body = parseInput(mfaLoginBeginRequestSchema, request.body);
    return login.begin(body, requestContext(request));
  });

  app.post(apiPaths.mfaLoginFinishSession, { config: signIn }, async (request, reply) => {
    const body = parseInput(mfaLoginFinishRequestSchema, request.body);
    const session = await login.finish(body, requestContext(request));
    setSessionCookie(reply, session);
    return sessions.response(session) satisfies SessionResponse;
  });

  app.post(
    apiPaths.renewSession,
    { config: { access: 'authenticated', passive: true } },
    async (request, reply) => {
      const body = parseInput(renewSessionRequestSchema, request.body ?? {});
      const { session, user } = identityOf(request);
      const renewed = await sessions.renew(
        session,
        await assumedAfter(body, session, user, options.accessRequests),
      );
      if (!renewed) throw notAuthenticated('this session has ended: sign in again');
      setSessionCookie(reply, renewed);
      return sessions.response(renewed) satisfies SessionResponse;
    },
  );

  // A locked user may still sign out.
  app.delete(
    apiPaths.webSession,
    { config: { access: 'authenticated', allowLocked: true } },
    async (request, reply) => {
      const { user, session } = identityOf(request);
      await login.signOut(user, session.id, requestContext(request));
      clearSessionCookie(reply);
      return okBody;
    },
  );

  app.get(
    apiPaths.userStatus,
    { config: { access: 'authenticated', passive: true } },
    async () => okBody,
  );
}
