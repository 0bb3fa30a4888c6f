import type { AclArea, AclVerb, UserAcl } from '@postern/contracts';
import { lastActiveHeader } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accessDenied, notAuthenticated } from '../errors.js';
import type { AccessResolver } from '../access-control/access/access-resolver.js';
import type { Actor } from '../access-control/access/actor.js';
import type { Credential } from '../access-control/access/credential-revocation.js';
import { lockMessage, type LockView } from '../access-control/locks/lock-watcher.js';
import type { RoleSet } from '../access-control/rbac/index.js';
import type {
  WebSession,
  WebSessionService,
} from '../identity/web-sessions/web-sessions.service.js';

/**
 * What a route needs: 'public' (anyone), 'authenticated' (any signed-in user), or an ACL area and
 * verb. Every API route must declare it; a route without one fails at start-up (deny by default).
 */
export type RouteAccess = 'public' | 'authenticated' | { area: AclArea; verb: AclVerb };

export interface Identity {
  user: string;
  roles: string[];
  /** Internal trait names (`logins`, `db_users`…), from the user's record. */
  traits: Record<string, string[]>;
  authType: 'local' | 'sso';
  roleSet: RoleSet;
  acl: UserAcl;
  session: WebSession;
  /** Whether the user has a record: a connection made for them ends if it goes. */
  hasRecord: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** A public route that still wants to know the caller when there is a valid session. */
    optionalIdentity?: boolean;
    /**
     * A request the console makes on a timer (status poll, renewal): it is not user activity,
     * so it does not hold off auth.idle_timeout, unless the console reports its last activity.
     */
    passive?: boolean;
    /** Answers a locked user too: signing out must stay possible while a lock is in force. */
    allowLocked?: boolean;
  }
  interface FastifyRequest {
    identity: Identity | null;
  }
}

export const sessionCookieName = '__Host-session';
/** Milliseconds since the epoch of the user's last activity, as the console recorded it. */
export const lastActiveHeaderName = lastActiveHeader.toLowerCase();

export interface DeclaredRoute {
  method: string;
  url: string;
  access: RouteAccess;
}

export interface GuardDeps {
  sessions: WebSessionService;
  /** Roles and traits to RoleSet and ACL, from the watched roles and users. */
  access: Pick<AccessResolver, 'resolve' | 'credentialRevoked'>;
  /** The locks in force, from the watched locks. */
  locks: LockView;
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
    // A lock on the user or one of their roles stops every call, on every proxy (watched).
    const { user, roles } = request.identity;
    const lock = allowLocked ? undefined : deps.locks.lockFor({ user, roles });
    if (lock) throw accessDenied(`locked: ${lockMessage(lock)}`);
    await sessions.noteActivity(request.identity.session, activityTime(request, passive));
    if (access === 'authenticated') return;
    const granted = request.identity.acl[access.area] as unknown as Record<AclVerb, boolean>;
    if (!granted[access.verb]) {
      throw accessDenied(`access denied: ${access.verb} on ${access.area} is not allowed`);
    }
  });
  return declared;
}

/** Cookie names the session; the bearer header proves the caller is our console, not a CSRF. */
function identify(request: FastifyRequest, deps: GuardDeps): Promise<Identity | null> {
  const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  return identifyByCredentials(deps, request.cookies[sessionCookieName], bearer);
}

/**
 * The caller named by a session cookie and proven by its bearer, or null. WebSockets use it with
 * the bearer from their first frame (browsers cannot set headers on them).
 */
export async function identifyByCredentials(
  deps: Pick<GuardDeps, 'sessions' | 'access'>,
  cookie: string | undefined,
  bearer: string | undefined,
): Promise<Identity | null> {
  const session = await deps.sessions.fromCookie(cookie);
  if (!session || !deps.sessions.bearerMatches(session, bearer)) return null;
  // A change of credentials deletes the user's other sessions; this also covers one renewed
  // (or written by another proxy) while that happened.
  if (deps.access.credentialRevoked(session.user, webSessionCredential(session))) return null;
  const { roles, traits, authType, roleSet, acl, hasRecord } = deps.access.resolve(
    session.user,
    session.roles,
  );
  return { user: session.user, roles, traits, authType, roleSet, acl, session, hasRecord };
}

/** A web session as a credential: its sign-in time (renewals keep it) and its lineage. */
export function webSessionCredential(session: WebSession): Credential {
  return {
    issuedAt: Date.parse(session.created),
    ...(session.lineage ? { lineage: session.lineage } : {}),
  };
}

/** The signed-in caller as services see them (routes that declare access have one). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.identity) throw notAuthenticated();
  return { name: request.identity.user, roleSet: request.identity.roleSet };
}

/** Now for ordinary requests; for passive ones, the console's reported last activity, if any. */
function activityTime(request: FastifyRequest, passive: boolean | undefined): number | undefined {
  if (!passive) return undefined;
  const reported = Number(request.headers[lastActiveHeaderName]);
  return Number.isFinite(reported) && reported > 0 ? reported : 0;
}
