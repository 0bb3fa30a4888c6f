import type { FastifyReply } from 'fastify';
import { setSessionCookie } from '../auth/session-cookie.js';
import type { WebSession } from '../web-sessions/web-sessions.service.js';

/**
 * Binds a sign-in to the browser that started it. SameSite=Lax, unlike the session cookie: the
 * provider's redirect back is a cross-site navigation, which Lax cookies (and not Strict) follow.
 */
export const ssoStateCookieName = '__Host-postern_sso_state';
export const stateCookie = { httpOnly: true, secure: true, sameSite: 'lax', path: '/' } as const;

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
