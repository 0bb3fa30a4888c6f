import { ssoPaths } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { requestContext } from '../identity/auth/session-cookie.js';
import type { SamlFlowService } from './saml-flow.service.js';
import { landed, samlStateCookie, ssoStateCookieName, text, type SsoFailure } from './sso-http.js';
import { stateTtlMs } from './sso-state-ttl.js';

type NameParams = { Params: { name: string } };

/** SAML's handler routes: login (to the IdP), the ACS, and the SP metadata per connector. */
export function registerSaml(
  app: FastifyInstance,
  saml: SamlFlowService,
  route: { config: { access: 'public'; rateLimit: { max: number; timeWindow: number } } },
  failure: SsoFailure,
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
      const outcome = await saml.complete(
        request.params.name,
        { SAMLResponse: text(body.SAMLResponse), RelayState: text(body.RelayState) },
        state,
        requestContext(request),
      );
      return landed(reply, outcome);
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
