import type { Clock } from '../../clock.js';
import { badParameter, notFound } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit } from '../../modules/audit/emit.js';
import type { RolesStore } from '../../access-control/roles/roles.store.js';
import type { UserResource, UsersStore } from './users.store.js';

export interface NewUser {
  name: string;
  roles: string[];
  /** Internal trait names (`logins`, `db_users`…); see traits.ts. */
  traits?: Record<string, string[]>;
  /** Shorthand for traits.logins (the `users add --logins` flag). */
  logins?: string[];
  /** The bot this user is the identity of (identity/bots/). */
  bot?: string;
}

export interface UserChange {
  name: string;
  /** Replaces the roles when given. */
  roles?: string[];
  /** Replaces each trait given; traits left out keep their values. */
  traits?: Record<string, string[]>;
}

/** What deleting a user also ends: their sessions, links, failed-login count and preferences. */
export interface UserRemovalHooks {
  endSessions(name: string): Promise<unknown>;
  deleteLinks(name: string): Promise<unknown>;
  clearFailures(name: string): Promise<unknown>;
  forgetPreferences(name: string): Promise<unknown>;
}

export interface UsersDeps {
  store: UsersStore;
  roles: RolesStore;
  audit: AuditStore;
  now: Clock;
  removal: UserRemovalHooks;
}

const loginName = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,63}$/;
// eslint-disable-next-line no-control-regex
const controlChars = /[\u0000-\u001f\u007f]/;

/**
 * Local users: who they are, which roles and traits they hold. Credentials are set by invite
 * links. These are the rules every caller shares (API, CLI, first start); who may call them is
 * the caller's check (users-admin.service.ts for the API). `by` names the actor in audit events.
 */
export class UsersService {
  readonly store: UsersStore;

  constructor(private readonly deps: UsersDeps) {
    this.store = deps.store;
  }

  async create(input: NewUser, by: string): Promise<UserResource> {
    const roles = await this.checkRoles(input.roles);
    const traits = checkTraits({
      ...input.traits,
      ...(input.logins ? { logins: input.logins } : {}),
    });
    const user: UserResource = {
      kind: 'user',
      version: 'v2',
      metadata: { name: input.name },
      spec: {
        roles,
        traits: { ...traits, logins: traits.logins ?? [] },
        authType: 'local',
        ...(input.bot ? { bot: input.bot } : {}),
        createdAt: new Date(this.deps.now()).toISOString(),
      },
      status: {},
    };
    await this.store.create(user);
    await emitAudit(this.deps.audit, 'T1002I', { user: by, name: input.name, roles });
    return user;
  }

  async update(change: UserChange, by: string): Promise<UserResource> {
    const roles = change.roles && (await this.checkRoles(change.roles));
    const traits = checkTraits(change.traits ?? {});
    const updated = await this.store.mutate(change.name, (user) => {
      user.spec.traits = { ...user.spec.traits, ...traits };
      if (roles) user.spec.roles = roles;
      return user;
    });
    await emitAudit(this.deps.audit, 'T1003I', {
      user: by,
      name: change.name,
      roles: updated.spec.roles,
    });
    return updated;
  }

  /** Deletes the user and everything that lets them in: secrets, sessions and links. */
  async remove(name: string, by: string): Promise<void> {
    if (!(await this.store.delete(name))) throw notFound(`user ${name} not found`);
    await this.deps.removal.endSessions(name);
    await this.deps.removal.deleteLinks(name);
    await this.deps.removal.clearFailures(name);
    await this.deps.removal.forgetPreferences(name);
    await emitAudit(this.deps.audit, 'T1004I', { user: by, name });
  }

  async get(name: string): Promise<UserResource> {
    const found = await this.store.get(name);
    if (!found) throw notFound(`user ${name} not found`);
    return found.user;
  }

  list(): Promise<UserResource[]> {
    return this.store.list();
  }

  isLocked(user: UserResource): boolean {
    const until = user.status.lockedUntil;
    return Boolean(until && Date.parse(until) > this.deps.now());
  }

  /**
   * The roles, deduplicated and sorted; every one must exist. None is allowed here (such a user
   * may do nothing); the API and the CLI ask for at least one.
   */
  private async checkRoles(names: string[]): Promise<string[]> {
    const roles = unique(names).filter(Boolean).sort();
    const unknown: string[] = [];
    for (const role of roles) if (!(await this.deps.roles.get(role))) unknown.push(role);
    if (unknown.length > 0) {
      const noun = unknown.length === 1 ? 'role' : 'roles';
      throw badParameter(`unknown ${noun}: ${unknown.join(', ')}: create them first`);
    }
    return roles;
  }
}

/** Trait values deduplicated; logins must be valid OS logins, the rest printable text. */
function checkTraits(traits: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [trait, values] of Object.entries(traits)) {
    out[trait] = unique(values).filter(Boolean);
    for (const value of out[trait]) {
      if (trait === 'logins' && !loginName.test(value)) {
        throw badParameter(`login '${value}' is not a valid OS login`);
      }
      if (value.length > 256 || controlChars.test(value)) {
        throw badParameter(`trait ${trait}: '${value.slice(0, 40)}' is not a valid value`);
      }
    }
  }
  return out;
}

const unique = (values: string[]) => [...new Set(values.map((value) => value.trim()))];
