import {
  AlreadyExistsError,
  CompareFailedError,
  NotFoundError,
  type Backend,
  type Item,
} from '../../backend/index.js';
import { ApiError } from '../../errors.js';
import type { Role } from '../rbac/index.js';

export const rolesPrefix = '/roles/';

/** What a writer sees when the role moved on since it was read. */
export const changedMeanwhile = () =>
  new ApiError(
    'compare_failed',
    'the role was changed by someone else since you opened it: reload and reapply your change',
  );

/**
 * Roles as the engine's normalised v7 JSON under `/roles/<name>`. The stored value carries no
 * revision: the backend's revision is the truth, and reads put it into `metadata.revision`.
 */
export class RolesStore {
  constructor(private readonly backend: Backend) {}

  async get(name: string): Promise<Role | null> {
    const item = await this.backend.get(rolesPrefix + name);
    return item ? roleFromItem(item) : null;
  }

  async list(): Promise<Role[]> {
    const { items } = await this.backend.list({ prefix: rolesPrefix });
    return items.map(roleFromItem);
  }

  async create(role: Role): Promise<Role> {
    try {
      return roleFromItem(await this.backend.create(toPut(role)));
    } catch (error) {
      if (error instanceof AlreadyExistsError) {
        throw new ApiError('already_exists', `role ${role.metadata.name} already exists`);
      }
      throw error;
    }
  }

  /** Writes over `revision` when given (a stale one is a 409), else unconditionally. */
  async update(role: Role, revision: string | undefined): Promise<Role> {
    try {
      return roleFromItem(await this.backend.update(toPut(role), revision));
    } catch (error) {
      if (error instanceof NotFoundError) throw roleNotFound(role.metadata.name);
      if (error instanceof CompareFailedError) throw changedMeanwhile();
      throw error;
    }
  }

  async delete(name: string): Promise<void> {
    try {
      await this.backend.delete(rolesPrefix + name);
    } catch (error) {
      if (error instanceof NotFoundError) throw roleNotFound(name);
      throw error;
    }
  }
}

export const roleNotFound = (name: string) => new ApiError('not_found', `role ${name} not found`);

export function roleFromItem(item: Item): Role {
  const role = JSON.parse(item.value) as Role;
  role.metadata.revision = item.revision;
  return role;
}

function toPut(role: Role) {
  const { revision: _revision, ...metadata } = role.metadata;
  return { key: rolesPrefix + role.metadata.name, value: JSON.stringify({ ...role, metadata }) };
}
