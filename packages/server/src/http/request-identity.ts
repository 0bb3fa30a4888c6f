import type { AclArea, AclVerb, UserAcl } from '@postern/contracts';
import { lastActiveHeader } from '@postern/contracts';
import type { FastifyRequest } from 'fastify';
import { notAuthenticated } from '../errors.js';
import type { AccessResolver } from '../access-control/access/access-resolver.js';
import type { Actor } from '../access-control/access/actor.js';
import type { Credential, SubjectRef } from '../access-control/access/credential-revocation.js';
import type { CredentialMarks, LockView } from '../access-control/locks/lock-watcher.js';
import type { RoleSet } from '../access-control/rbac/index.js';
import type {
  WebSession,
  WebSessionService,
} from '../identity/web-sessions/web-sessions.service.js';

/**
 * Who is calling, as the access guard (plugins/access-guard.ts) found them, and the helpers routes
 * and services use to read it. It lives here, below the plugins, so features never import one.
 */

/**
 * What a route needs: 'public' (anyone), 'authenticated' (any signed-in user), or an ACL area and
 * verb. Every API route must declare it; a route without one fails at start-up (deny by default).
 */
export type RouteAccess =
  | 'public'
  | 'authenticated'
  | { area: AclArea; verb: AclVerb }
  // Integrations carry one more verb: sending through one (Send test message).
  | { area: 'integrations'; verb: 'use' };

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
  /** Roles the session's assumed access requests add now (also in `roles`). */
  assumedRoles: string[];
  /**
   * Set by a terminal socket whose caller has just passed a per-session MFA check on it
   * (require_session_mfa): the session it opens may start.
   */
  mfaVerified?: boolean;
  /** The device that answered that check: an `mfa_device` lock on it ends the session. */
  sessionMfaDevice?: string;
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

export interface GuardDeps {
  sessions: WebSessionService;
  /** Roles and traits to RoleSet and ACL, from the watched roles and users. */
  access: Pick<AccessResolver, 'resolve' | 'credentialRevoked'>;
  /** The locks in force, from the watched locks. */
  locks: LockView;
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
  const { roles, traits, authType, roleSet, acl, hasRecord, assumedRoles } = deps.access.resolve(
    session.user,
    session.roles,
    session.accessRequests ?? [],
  );
  return {
    user: session.user,
    roles,
    traits,
    authType,
    roleSet,
    acl,
    session,
    hasRecord,
    assumedRoles,
  };
}

/** The token of an `Authorization: Bearer …` header, if the request has one. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
}

/** A web session as a credential: its sign-in time (renewals keep it) and its lineage. */
export function webSessionCredential(session: WebSession): Credential {
  return {
    issuedAt: Date.parse(session.created),
    ...(session.lineage ? { lineage: session.lineage } : {}),
    ...(session.mfaDevice ? { mfaDevice: session.mfaDevice } : {}),
  };
}

/**
 * What a web session's caller carries that a lock may name: the MFA device it was signed in
 * with, the one that answered a per-session check (when this call passed one), and the access
 * requests it assumed.
 */
export function webSessionMarks(identity: Identity): CredentialMarks {
  const { mfaDevice, accessRequests } = identity.session;
  return {
    ...(mfaDevice ? { mfaDevice } : {}),
    ...(identity.sessionMfaDevice ? { sessionMfaDevice: identity.sessionMfaDevice } : {}),
    ...(accessRequests?.length ? { accessRequests } : {}),
  };
}

/** A web session's caller as a subject that live connections are judged again by. */
export function webSessionSubject(identity: Identity): SubjectRef {
  return {
    user: identity.user,
    roles: identity.session.roles,
    credential: webSessionCredential(identity.session),
    hadRecord: identity.hasRecord,
    accessRequests: identity.session.accessRequests ?? [],
  };
}

/** The signed-in caller as services see them (routes that declare access have one). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.identity) throw notAuthenticated();
  return { name: request.identity.user, roleSet: request.identity.roleSet };
}
