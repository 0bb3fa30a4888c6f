import type { ConnectorKind } from '@postern/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setSessionCookie } from '../identity/auth/session-cookie.js';
import type { WebSession } from '../identity/web-sessions/web-sessions.service.js';
import type { SsoOutcome } from './sso-flow.js';
import type { SsoErrorStage } from './sso-login.service.js';

/**
 * Binds a sign-in to the browser that started it. SameSite=Lax, unlike the session cookie: the
 * provider's redirect back is a cross-site navigation, which Lax cookies (and not Strict) follow.
 */
export const ssoStateCookieName = '__Host-postern_sso_state';
export const stateCookie = { httpOnly: true, secure: true, sameSite: 'lax', path: '/' } as const;

/**
 * The IdP's answer comes as a cross-site form POST (HTTP-POST binding), which SameSite=Lax
 * cookies do not follow: the SAML state cookie is SameSite=None (still HttpOnly and Secure).
 */
export const samlStateCookie = { ...stateCookie, sameSite: 'none' } as const;

/** The routes' shared failure handler (sso.routes.ts): audits, then the message page. */
export type SsoFailure = (
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  kind: ConnectorKind,
  connector: string | undefined,
  stage: SsoErrorStage,
) => Promise<FastifyReply>;

/** Ends a successful callback: the console's session, or the CLI's loopback with its code. */
export function landed(reply: FastifyReply, outcome: SsoOutcome) {
  if ('handedOver' in outcome) {
    // A plain redirect is enough: no cookie is set, the code travels in the URL to loopback.
    return reply.header('cache-control', 'no-store').redirect(outcome.handedOver, 302);
  }
  return signedIn(reply, outcome.session, outcome.redirect);
}

/**
 * Sets the session cookie and moves on with a page of our own rather than a 302: the browser
 * came from the provider's site, and a SameSite=Strict cookie is not sent along a redirect chain
 * that started cross-site. A navigation started by our page is same-site, so the console loads
 * signed in, with the bearer filled into its index like after a password sign-in.
 */
export function signedIn(reply: FastifyReply, session: WebSession, redirect: string) {
  setSessionCookie(reply, session);
  const href = escapeHtml(redirect);
  return reply
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;URL='${href}'"><title>Signing in</title></head><body><p><a href="${href}">Continue</a></p></body></html>`,
    );
}

export const text = (value: unknown) => (typeof value === 'string' ? value : '');

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
