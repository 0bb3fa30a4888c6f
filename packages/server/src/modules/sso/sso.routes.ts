import { ssoErrorRoutes, ssoPaths, type ConnectorKind } from '@postern/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext, setSessionCookie } from '../auth/session-cookie.js';
import type { WebSession } from '../web-sessions/web-sessions.service.js';
import { ConnectorFailure, type CallbackQuery, type SsoFlow } from './sso-flow.js';
import { stateTtlMs } from './sso-state.store.js';
import { SsoLoginError, type SsoErrorStage, type SsoLoginService } from './sso-login.service.js';

/**
 * Binds a sign-in to the browser that started it. SameSite=Lax, unlike the session cookie: the
 * provider's redirect back is a cross-site navigation, which Lax cookies (and not Strict) follow.
 */
export const ssoStateCookieName = '__Host-postern_sso_state';
const stateCookie = { httpOnly: true, secure: true, sameSite: 'lax', path: '/' } as const;

export interface SsoRoutesOptions {
  /** The redirect flows by connector kind; SAML (a POSTed assertion) is not one of them. */
  flows: { oidc: SsoFlow; github: SsoFlow };
  login: SsoLoginService;
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
          const { session, redirect } = await flow.complete(query, state, requestContext(request));
          return signedIn(reply, session, redirect);
        } catch (error) {
          return failure(request, reply, error, kind, undefined, 'callback');
        }
      },
    );
  }

  // SAML connectors can be stored and shown on the login page before their flow exists (issue 8
  // leaves it to a later change): their button lands on a clear message rather than a 404.
  app.get<LoginQuery>(ssoPaths.loginWeb('saml'), route, async (request, reply) => {
    const unavailable = new SsoLoginError(
      'SAML sign-in is not available on this proxy yet',
      'login',
    );
    return failure(request, reply, unavailable, 'saml', text(request.query.connector_id), 'login');
  });

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

/**
 * Sets the session cookie and moves on with a page of our own rather than a 302: the browser
 * came from the provider's site, and a SameSite=Strict cookie is not sent along a redirect chain
 * that started cross-site. A navigation started by our page is same-site, so the console loads
 * signed in, with the bearer filled into its index like after a password sign-in.
 */
function signedIn(reply: FastifyReply, session: WebSession, redirect: string) {
  setSessionCookie(reply, session);
  const href = escapeHtml(redirect);
  return reply
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;URL='${href}'"><title>Signing in</title></head><body><p><a href="${href}">Continue</a></p></body></html>`,
    );
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
