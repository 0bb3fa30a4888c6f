import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accessDenied } from '../errors.js';
import { sameSecret } from '../secrets.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Public mutations (sign-in, invite completion) have no bearer to prove the caller is our
     * console, so they take the double-submit check instead: the X-CSRF-Token header must equal
     * the `__Host-grv_csrf` cookie that the index page sets. Another site can send the cookie
     * but cannot read it to put in a header.
     */
    csrf?: boolean;
  }
}

export const csrfCookieName = '__Host-grv_csrf';
export const csrfHeaderName = 'x-csrf-token';
const wellFormed = /^[0-9a-f]{64}$/;

export function installCsrfCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.csrf && !csrfMatches(request)) {
      throw accessDenied('missing or invalid CSRF token: reload the page and try again');
    }
  });
}

function csrfMatches(request: FastifyRequest): boolean {
  const cookie = request.cookies[csrfCookieName];
  const header = request.headers[csrfHeaderName];
  if (typeof header !== 'string' || !cookie || !wellFormed.test(cookie)) return false;
  return sameSecret(header, cookie);
}
