import { ssoPaths, type ConnectorKind } from '@postern/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../auth/session-cookie.js';
import type { SamlFlowService } from './saml-flow.service.js';
import type { SsoErrorStage } from './sso-login.service.js';
import { signedIn, ssoStateCookieName, stateCookie, text } from './sso-http.js';
import { stateTtlMs } from './sso-state.store.js';

type Failure = (
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  kind: ConnectorKind,
  connector: string | undefined,
  stage: SsoErrorStage,
) => Promise<FastifyReply>;

/**
 * The IdP's answer comes as a cross-site form POST (HTTP-POST binding), which SameSite=Lax
 * cookies do not follow: the SAML state cookie is SameSite=None (still HttpOnly and Secure).
 */
const samlStateCookie = { ...stateCookie, sameSite: 'none' } as const;

type NameParams = { Params: { name: string } };

/** SAML's handler routes: login (to the IdP), the ACS, and the SP metadata per connector. */
export function registerSaml(
  app: FastifyInstance,
  saml: SamlFlowService,
  route: { config: { access: 'public'; rateLimit: { max: number; timeWindow: number } } },
  failure: Failure,
) {
  // The ACS takes a form; this parser is only in the SSO routes' scope.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 512 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  app.get<{ Querystring: { connector_id?: string; redirect_url?: string } }>(
    ssoPaths.loginWeb('saml'),
    route,
    async (request, reply) => {
      const connector = text(request.query.connector_id);
      try {
        const { location, state } = await saml.begin(connector, text(request.query.redirect_url));
        reply.setCookie(ssoStateCookieName, state, {
          ...samlStateCookie,
          maxAge: stateTtlMs / 1000,
        });
        return reply.header('cache-control', 'no-store').redirect(location, 302);
      } catch (error) {
        return failure(request, reply, error, 'saml', connector, 'login');
      }
    },
  );

  app.post<NameParams>(`${ssoPaths.samlAcs('')}:name`, route, async (request, reply) => {
    const state = request.cookies[ssoStateCookieName];
    reply.clearCookie(ssoStateCookieName, samlStateCookie);
    const body = (request.body ?? {}) as Record<string, unknown>;
    try {
      const { session, redirect } = await saml.complete(
        request.params.name,
        { SAMLResponse: text(body.SAMLResponse), RelayState: text(body.RelayState) },
        state,
        requestContext(request),
      );
      return signedIn(reply, session, redirect);
    } catch (error) {
      return failure(request, reply, error, 'saml', request.params.name, 'callback');
    }
  });

  app.get<NameParams>(`${ssoPaths.samlMetadata('')}:name`, route, async (request, reply) => {
    try {
      const xml = await saml.metadata(request.params.name);
      return reply.type('application/samlmetadata+xml').send(xml);
    } catch {
      return reply.code(404).type('text/plain').send('no such SAML connector');
    }
  });
}
