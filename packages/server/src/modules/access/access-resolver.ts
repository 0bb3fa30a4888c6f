import type { UserAcl } from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import { RoleSet, userAcl, type Role } from '../rbac/index.js';
import { roleFromItem, rolesPrefix } from '../roles/roles.store.js';
import { usersPrefix, type UserResource } from '../users/users.store.js';

/** What a signed-in user may do, worked out from their roles and traits. */
export interface ResolvedAccess {
  roles: string[];
  /** Internal trait names (`logins`, `db_users`…), as role templates read them. */
  traits: Record<string, string[]>;
  authType: 'local' | 'sso';
  roleSet: RoleSet;
  acl: UserAcl;
}

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
  private memo = new Map<string, ResolvedAccess>();
  private memoGeneration = '';

  constructor(backend: Backend, onError?: (error: unknown) => void) {
    this.roles = new WatchedCache(backend, { prefix: rolesPrefix, parse: roleFromItem, onError });
    this.users = new WatchedCache(backend, {
      prefix: usersPrefix,
      parse: (item) => JSON.parse(item.value) as UserResource,
      onError,
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.roles.start(), this.users.start()]);
  }

  async close(): Promise<void> {
    await Promise.all([this.roles.close(), this.users.close()]);
  }

  /**
   * The access of a session's user. Roles and traits come from the user's record, so a change
   * to them applies to sessions already open; a session whose user has no record (sessions that
   * tests and the e2e harness write directly) keeps the roles it was created with and no traits.
   * Role names that no longer exist grant nothing.
   */
  resolve(user: string, sessionRoles: readonly string[]): ResolvedAccess {
    const generation = `${this.roles.generation}:${this.users.generation}`;
    if (generation !== this.memoGeneration || this.memo.size >= memoLimit) {
      this.memo = new Map();
      this.memoGeneration = generation;
    }
    const key = `${user}\n${sessionRoles.join(',')}`;
    let resolved = this.memo.get(key);
    if (!resolved) {
      resolved = this.compute(user, sessionRoles);
      this.memo.set(key, resolved);
    }
    return resolved;
  }

  /** Every role name, for the user context's requestable roles. */
  roleNames(): string[] {
    return this.roles.names().sort();
  }

  private compute(user: string, sessionRoles: readonly string[]): ResolvedAccess {
    const record = this.users.get(user);
    const roles = [...(record?.spec.roles ?? sessionRoles)].sort();
    const traits = { ...(record?.spec.traits ?? {}) };
    const defined = roles.flatMap((name) => this.roles.get(name) ?? []);
    const roleSet = new RoleSet(defined, { name: user, traits });
    const authType = !record || record.spec.authType === 'local' ? 'local' : 'sso';
    return { roles, traits, authType, roleSet, acl: userAcl(roleSet) };
  }
}
