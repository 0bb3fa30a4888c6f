import { ssoErrorRoutes, ssoPaths, type ConnectorKind } from '@postern/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../identity/auth/session-cookie.js';
import type { ConsoleLoginService } from './console-login.service.js';
import { registerConsoleLogin } from './console-login.routes.js';
import { registerSaml } from './saml.routes.js';
import type { SamlFlowService } from './saml-flow.service.js';
import { landed, ssoStateCookieName, stateCookie, text } from './sso-http.js';
import { ConnectorFailure, type CallbackQuery, type SsoFlow } from './sso-flow.js';
import { stateTtlMs } from './sso-state-ttl.js';
import { SsoLoginError, type SsoErrorStage, type SsoLoginService } from './sso-login.service.js';

export interface SsoRoutesOptions {
  /** The redirect flows by connector kind; SAML (a POSTed assertion) is not one of them. */
  flows: { oidc: SsoFlow; github: SsoFlow };
  saml: SamlFlowService;
  login: SsoLoginService;
  /** `postern login --auth`: the CLI's sign-in through the same flows. */
  console: ConsoleLoginService;
  rateLimit: { max: number; timeWindow: number };
}

type LoginQuery = { Querystring: { connector_id?: string; redirect_url?: string } };

/** The SSO handler routes (spec §2 `/v1/webapi/{oidc,github}/*`): browser navigations. */
export async function ssoRoutes(app: FastifyInstance, options: SsoRoutesOptions) {
  const { login } = options;
  const route = { config: { access: 'public', rateLimit: options.rateLimit } } as const;

  for (const kind of ['oidc', 'github'] as const) {
    const flow = options.flows[kind];

    app.get<LoginQuery>(ssoPaths.loginWeb(kind), route, async (request, reply) => {
      const connector = text(request.query.connector_id);
      try {
        const { location, state } = await flow.begin(connector, text(request.query.redirect_url));
        reply.setCookie(ssoStateCookieName, state, { ...stateCookie, maxAge: stateTtlMs / 1000 });
        return reply.header('cache-control', 'no-store').redirect(location, 302);
      } catch (error) {
        return failure(request, reply, error, kind, connector, 'login');
      }
    });

    app.get<{ Querystring: CallbackQuery }>(
      ssoPaths.callback(kind),
      route,
      async (request, reply) => {
        const state = request.cookies[ssoStateCookieName];
        reply.clearCookie(ssoStateCookieName, stateCookie);
        try {
          const query = {
            code: text(request.query.code),
            state: text(request.query.state),
            error: text(request.query.error),
            error_description: text(request.query.error_description),
          };
          return landed(reply, await flow.complete(query, state, requestContext(request)));
        } catch (error) {
          return failure(request, reply, error, kind, undefined, 'callback');
        }
      },
    );
  }

  registerSaml(app, options.saml, route, failure);
  const flows = { ...options.flows, saml: options.saml };
  registerConsoleLogin(app, { console: options.console, flows }, route, failure);

  /** Audits the failure and sends the browser to the message page with a readable reason. */
  async function failure(
    request: FastifyRequest,
    reply: FastifyReply,
    error: unknown,
    kind: ConnectorKind,
    connector: string | undefined,
    stage: SsoErrorStage,
  ) {
    const tagged = error instanceof ConnectorFailure;
    const cause = tagged ? error.failure : error;
    const name = tagged ? error.connector : connector;
    const known = cause instanceof SsoLoginError;
    if (!known) request.log.warn({ err: cause }, `${kind} sign-in failed`);
    const reason = known ? cause.message : `the sign-in with the identity provider failed`;
    await login.failed(kind, name?.slice(0, 64) || undefined, reason, requestContext(request));
    const page = known ? ssoErrorRoutes[cause.stage] : ssoErrorRoutes[stage];
    return reply
      .header('cache-control', 'no-store')
      .redirect(`${page}?details=${encodeURIComponent(reason)}`, 302);
  }
}
