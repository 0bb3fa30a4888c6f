import { userNameSchema } from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { accessDenied } from '../../errors.js';
import { lockMessage, type LockView } from '../../access-control/locks/lock-watcher.js';
import { LocalUserExistsError, type UsersStore } from '../../identity/users/users.store.js';
import type { WebSessionService } from '../../identity/web-sessions/web-sessions.service.js';
import type { AuditStore } from '../audit/index.js';
import { emitAudit } from '../audit/emit.js';
import { verifyForwardedIdentity } from './forwarded-identity.js';
import { mapRoles } from './role-map.js';
import type { TrustedClustersStore } from './trusted-clusters.store.js';

/** What the root holds for a user it forwards: a web session of the leaf's, never shown to anyone. */
export interface LeafSessionGrant {
  session: string;
  bearer: string;
  expires: string;
  bearerExpires: string;
}

/**
 * A leaf session lives at most this long, so a role the root takes away, or a role map the leaf
 * changes, counts within minutes; the root asks for a new one before it ends.
 */
export const leafSessionMaxTtlMs = 10 * 60_000;

export interface LeafSessionsDeps {
  trusted: TrustedClustersStore;
  users: UsersStore;
  sessions: WebSessionService;
  locks: LockView;
  audit: AuditStore;
  clusterName: string;
  now: Clock;
}

/**
 * The leaf's side of forwarding: a root user's identity, signed by a root this cluster trusts,
 * becomes a web session of this cluster with the roles the role map gives, so every rule the
 * leaf has (RBAC, locks, sessions, recordings, audit) applies to them as to its own users. The
 * user is kept like an SSO user (roles and traits from the root, expiring with the session);
 * a local user of the same name is never taken over.
 */
export class LeafSessions {
  constructor(private readonly deps: LeafSessionsDeps) {}

  async admit(root: string, token: string): Promise<LeafSessionGrant> {
    const admitted = await this.admitUser(root, token, leafSessionMaxTtlMs);
    const { user, roles, until } = admitted;
    const ttlMs = until.getTime() - this.deps.now();
    const extra = admitted.sessionMfa ? { rootSessionMfa: root } : {};
    const session = await this.deps.sessions.create(user, roles, ttlMs, extra);
    return {
      session: session.id,
      bearer: session.bearerToken,
      expires: session.expires,
      bearerExpires: session.bearerExpires,
    };
  }

  /**
   * A root user, from the identity the root signed, as a user of this cluster: the roles the
   * role map gives, checked against this cluster's locks, kept like an SSO user at least until
   * `until` (the identity's end, and at most `maxTtlMs` from now), and their sign-in audited.
   * Used by web sessions (leaf-session.routes.ts) and by SSH through the root (cluster-ssh.ts).
   */
  async admitUser(
    root: string,
    token: string,
    maxTtlMs: number,
  ): Promise<{ user: string; roles: string[]; until: Date; sessionMfa: boolean }> {
    const { trusted, users, locks, audit, clusterName, now } = this.deps;
    const tc = await trusted.get(root);
    if (!tc?.spec.enabled || !tc.trust) throw accessDenied(`${clusterName} does not trust ${root}`);
    const identity = await verifyForwardedIdentity(token, {
      rootKeyPem: tc.trust.identityKey,
      root,
      leaf: clusterName,
      now: now(),
    }).catch(() => {
      throw accessDenied(`the identity ${root} forwarded did not check out`);
    });
    const { user } = identity;
    if (!userNameSchema.safeParse(user).success) throw accessDenied('unusable user name');
    const roles = mapRoles(tc.spec.role_map, identity.roles);
    if (roles.length === 0) {
      throw accessDenied(
        `none of ${user}'s roles on ${root} (${identity.roles.join(', ') || 'none'}) map to a role on ${clusterName}`,
      );
    }
    const lock = locks.lockFor({ user, roles });
    if (lock) throw accessDenied(`locked: ${lockMessage(lock)}`);
    const ttlMs = Math.min(identity.expires.getTime() - now(), maxTtlMs);
    if (ttlMs <= 0) throw accessDenied('the forwarded identity has expired');
    const until = new Date(now() + ttlMs);
    try {
      await users.putSsoUser(
        {
          kind: 'user',
          version: 'v2',
          metadata: { name: user },
          spec: {
            roles,
            traits: { ...identity.traits, logins: identity.traits.logins ?? [] },
            authType: 'sso',
            connector: { kind: 'trusted_cluster', name: root },
            expires: until.toISOString(),
            createdAt: new Date(now()).toISOString(),
          },
          status: {},
        },
        until,
      );
    } catch (error) {
      if (!(error instanceof LocalUserExistsError)) throw error;
      throw accessDenied(
        `a local user named ${user} exists on ${clusterName}, so ${user} of ${root} cannot come in`,
      );
    }
    await emitAudit(audit, 'T1001I', {
      user,
      method: 'trusted_cluster',
      connector: root,
      roles,
      success: true,
    });
    return { user, roles, until, sessionMfa: identity.sessionMfa === true };
  }
}
