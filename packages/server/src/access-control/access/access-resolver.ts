import type { UserAcl } from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import { RoleSet, userAcl, type Role } from '../rbac/index.js';
import { roleFromItem, rolesPrefix } from '../roles/roles.store.js';
import { usersPrefix, type UserResource } from '../../identity/users/users.store.js';
import { systemClock, type Clock } from '../../clock.js';
import { AssumedRequests, type AssumedGrant } from './assumed-requests.js';
import { credentialRevoked, type Credential, type SubjectRef } from './credential-revocation.js';

/** What a signed-in user may do, worked out from their roles and traits. */
export interface ResolvedAccess {
  roles: string[];
  /** Internal trait names (`logins`, `db_users`…), as role templates read them. */
  traits: Record<string, string[]>;
  authType: 'local' | 'sso';
  roleSet: RoleSet;
  acl: UserAcl;
  /** Whether the user has a record (sessions written directly by tests have none). */
  hasRecord: boolean;
  /** The roles that approved access requests add (also in `roles`), sorted. */
  assumedRoles: string[];
}

/** A subject judged again: its current roles, or why it no longer counts. */
export type CurrentSubject =
  { ok: true; roles: string[]; roleSet: RoleSet } | { ok: false; reason: string };

const noGrant: AssumedGrant = { roles: [], restrictions: new Map() };

/** Memoised results kept at most; beyond it the memo starts again (it is only a cache). */
const memoLimit = 10_000;

/**
 * Every role and user in memory, kept current through the backend's watch, so the access guard
 * computes a caller's RoleSet without a storage round trip, and a role edited (or a user's roles
 * changed) on any proxy applies on every proxy at once. Results are memoised until either
 * collection changes.
 */
export class AccessResolver {
  readonly roles: WatchedCache<Role>;
  readonly users: WatchedCache<UserResource>;
  /** Access requests: what an assumed one adds, judged live (approval, deletion, expiry). */
  readonly requests: AssumedRequests;
  private memo = new Map<string, ResolvedAccess>();
  private memoGeneration = '';

  constructor(backend: Backend, onError?: (error: unknown) => void, now: Clock = systemClock) {
    this.requests = new AssumedRequests(backend, now, onError);
    this.roles = new WatchedCache(backend, { prefix: rolesPrefix, parse: roleFromItem, onError });
    this.users = new WatchedCache(backend, {
      prefix: usersPrefix,
      parse: (item) => JSON.parse(item.value) as UserResource,
      onError,
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.roles.start(), this.users.start(), this.requests.start()]);
  }

  async close(): Promise<void> {
    await Promise.all([this.roles.close(), this.users.close(), this.requests.close()]);
  }

  /**
   * The access of a session's user. Roles and traits come from the user's record, so a change
   * to them applies to sessions already open; a session whose user has no record (sessions that
   * tests and the e2e harness write directly) keeps the roles it was created with and no traits.
   * Role names that no longer exist grant nothing. `requestIds` are the access requests the
   * credential assumed: the user's own approved ones add their roles until their access ends.
   */
  resolve(
    user: string,
    sessionRoles: readonly string[],
    requestIds: readonly string[] = [],
  ): ResolvedAccess {
    const generation = `${this.roles.generation}:${this.users.generation}`;
    if (generation !== this.memoGeneration || this.memo.size >= memoLimit) {
      this.memo = new Map();
      this.memoGeneration = generation;
    }
    const assumed = requestIds.length > 0 ? this.requests.grantOf(user, requestIds) : noGrant;
    const limits = [...assumed.restrictions].map(([role, keys]) => `${role}=${[...keys].sort()}`);
    const key = `${user}\n${sessionRoles.join(',')}\n${assumed.roles.join(',')}\n${limits.sort()}`;
    let resolved = this.memo.get(key);
    if (!resolved) {
      resolved = this.compute(user, sessionRoles, assumed);
      this.memo.set(key, resolved);
    }
    return resolved;
  }

  /** Why this credential of the user no longer counts (a change of credentials), or undefined. */
  credentialRevoked(user: string, credential: Credential): string | undefined {
    return credentialRevoked(this.users.get(user), credential);
  }

  /**
   * The subject of a live connection against the CURRENT users and roles: a deleted user or a
   * revoked credential ends it; otherwise its roles and RoleSet as a new request would get them.
   */
  current(subject: SubjectRef): CurrentSubject {
    const record = this.users.get(subject.user);
    if (subject.hadRecord && !record) return { ok: false, reason: 'the user was deleted' };
    const revoked = credentialRevoked(record, subject.credential);
    if (revoked) return { ok: false, reason: revoked };
    const { roles, roleSet } = this.resolve(
      subject.user,
      subject.roles,
      subject.accessRequests ?? [],
    );
    return { ok: true, roles, roleSet };
  }

  /** Calls `listener` after any change to roles or users (several in a row call it once). */
  onChange(listener: () => void): () => void {
    let scheduled = false;
    const changed = () => {
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        listener();
      });
    };
    for (const cache of [this.roles, this.users] as const) {
      cache.on('put', changed).on('delete', changed);
    }
    this.requests.on('change', changed);
    return () => {
      for (const cache of [this.roles, this.users] as const) {
        cache.off('put', changed).off('delete', changed);
      }
      this.requests.off('change', changed);
    };
  }

  /** Just these roles, with the user's traits: what `search_as_roles` would let them see. */
  roleSetFor(user: string, roleNames: readonly string[]): RoleSet {
    const traits = { ...(this.users.get(user)?.spec.traits ?? {}) };
    const defined = roleNames.flatMap((name) => this.roles.get(name) ?? []);
    return new RoleSet(defined, { name: user, traits });
  }

  /** Every role name, for the user context's requestable roles. */
  roleNames(): string[] {
    return this.roles.names().sort();
  }

  private compute(
    user: string,
    sessionRoles: readonly string[],
    assumed: AssumedGrant,
  ): ResolvedAccess {
    const record = this.users.get(user);
    const own = record?.spec.roles ?? sessionRoles;
    const roles = [...new Set([...own, ...assumed.roles])].sort();
    // A role the user holds anyway is never narrowed by a request for some resources.
    const restrictions = new Map([...assumed.restrictions].filter(([role]) => !own.includes(role)));
    const assumedRoles = assumed.roles;
    const traits = { ...(record?.spec.traits ?? {}) };
    const defined = roles.flatMap((name) => this.roles.get(name) ?? []);
    const roleSet = new RoleSet(defined, { name: user, traits }, restrictions);
    const authType = !record || record.spec.authType === 'local' ? 'local' : 'sso';
    const acl = userAcl(roleSet);
    return { roles, traits, authType, roleSet, acl, hasRecord: !!record, assumedRoles };
  }
}
