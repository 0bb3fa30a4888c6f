import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionCookieName } from '../../http/request-identity.js';
import type { WebSession } from '../web-sessions/web-sessions.service.js';

/**
 * The session cookie: `__Host-` (Secure, Path=/, no Domain), HttpOnly so scripts never see it,
 * SameSite=Strict so no other site's request carries it. It names the session; the bearer
 * proves the caller is the console.
 */
const attributes = { httpOnly: true, secure: true, sameSite: 'strict', path: '/' } as const;

export function setSessionCookie(reply: FastifyReply, session: WebSession): void {
  reply.setCookie(sessionCookieName, session.id, {
    ...attributes,
    expires: new Date(session.expires),
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(sessionCookieName, attributes);
}

/** Who is calling, for audit events and WebAuthn origin checks; never a secret. */
export interface RequestContext {
  addr?: string;
  origin?: string;
}

export const requestContext = (request: FastifyRequest): RequestContext => ({
  addr: request.ip,
  origin: typeof request.headers.origin === 'string' ? request.headers.origin : undefined,
});
