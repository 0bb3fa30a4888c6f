import type { AclVerb } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accessDenied, notAuthenticated } from '../errors.js';
import { lockMessage } from '../access-control/locks/lock-watcher.js';
import {
  bearerToken,
  identifyByCredentials,
  lastActiveHeaderName,
  sessionCookieName,
  type GuardDeps,
  type Identity,
  type RouteAccess,
  webSessionMarks,
} from '../http/request-identity.js';

export interface DeclaredRoute {
  method: string;
  url: string;
  access: RouteAccess;
}

/** Installs the guard and returns the live list of guarded routes (the route-table test walks it). */
export function installAccessGuard(
  app: FastifyInstance,
  deps: GuardDeps,
  guardedPrefixes: string[],
): DeclaredRoute[] {
  const { sessions } = deps;
  const declared: DeclaredRoute[] = [];
  app.decorateRequest('identity', null);

  app.addHook('onRoute', (route) => {
    const url = route.url ?? route.path;
    if (!guardedPrefixes.some((prefix) => url.startsWith(prefix))) return;
    const access = route.config?.access;
    if (!access) throw new Error(`route ${String(route.method)} ${url} declares no access`);
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') declared.push({ method, url, access });
    }
  });

  app.addHook('onRequest', async (request) => {
    const { access, optionalIdentity, passive, allowLocked } = request.routeOptions.config;
    if (!access) return;
    if (access === 'public') {
      if (optionalIdentity) request.identity = await identify(request, deps);
      return;
    }
    request.identity = await identify(request, deps);
    if (!request.identity) throw notAuthenticated();
    // A lock on the user, one of their roles, the MFA device they signed in with or an access
    // request the session assumed stops every call, on every proxy (watched).
    const { user, roles } = request.identity;
    const subject = { user, roles, ...webSessionMarks(request.identity) };
    const lock = allowLocked ? undefined : deps.locks.lockFor(subject);
    if (lock) throw accessDenied(`locked: ${lockMessage(lock)}`);
    await sessions.noteActivity(request.identity.session, activityTime(request, passive));
    if (access === 'authenticated') return;
    // `use` exists on integrations only; elsewhere it reads as undefined, so it is refused.
    const granted = request.identity.acl[access.area] as unknown as Partial<
      Record<AclVerb | 'use', boolean>
    >;
    if (!granted[access.verb]) {
      throw accessDenied(`access denied: ${access.verb} on ${access.area} is not allowed`);
    }
  });
  return declared;
}

/** Cookie names the session; the bearer header proves the caller is our console, not a CSRF. */
function identify(request: FastifyRequest, deps: GuardDeps): Promise<Identity | null> {
  const bearer = bearerToken(request.headers.authorization);
  return identifyByCredentials(deps, request.cookies[sessionCookieName], bearer);
}

/** Now for ordinary requests; for passive ones, the console's reported last activity, if any. */
function activityTime(request: FastifyRequest, passive: boolean | undefined): number | undefined {
  if (!passive) return undefined;
  const reported = Number(request.headers[lastActiveHeaderName]);
  return Number.isFinite(reported) && reported > 0 ? reported : 0;
}
