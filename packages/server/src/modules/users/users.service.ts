import type { Clock } from '../../clock.js';
import { badParameter, notFound } from '../../errors.js';
import type { AuditStore } from '../audit/index.js';
import { emitAudit } from '../audit/emit.js';
import type { UserResource, UsersStore } from './users.store.js';

export interface NewUser {
  name: string;
  roles: string[];
  logins?: string[];
}

const roleName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const loginName = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,63}$/;

/** Local users: who they are and which roles they hold. Credentials are set by invite links. */
export class UsersService {
  constructor(
    readonly store: UsersStore,
    private readonly audit: AuditStore,
    private readonly now: Clock,
  ) {}

  async create(input: NewUser, by: string): Promise<UserResource> {
    const roles = unique(input.roles);
    const logins = unique(input.logins ?? []);
    for (const role of roles) {
      if (!roleName.test(role)) throw badParameter(`role name '${role}' is not valid`);
    }
    for (const login of logins) {
      if (!loginName.test(login)) throw badParameter(`login '${login}' is not a valid OS login`);
    }
    const user: UserResource = {
      kind: 'user',
      version: 'v2',
      metadata: { name: input.name },
      spec: {
        roles: roles.sort(),
        traits: { logins },
        authType: 'local',
        createdAt: new Date(this.now()).toISOString(),
      },
      status: {},
    };
    await this.store.create(user);
    await emitAudit(this.audit, 'T1002I', { user: by, name: input.name, roles: user.spec.roles });
    return user;
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
    return Boolean(until && Date.parse(until) > this.now());
  }
}

const unique = (values: string[]) => [...new Set(values.map((value) => value.trim()))];
