import { readWithRevision, RevisionedStore, type Backend, type Item } from '../../backend/index.js';
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
export class RolesStore extends RevisionedStore<Role> {
  constructor(backend: Backend) {
    super(backend, {
      prefix: rolesPrefix,
      keyOf: (name) => name,
      refOf: (role) => role.metadata.name,
      revisionInMetadata: true,
      errors: {
        notFound: roleNotFound,
        alreadyExists: (name) => new ApiError('already_exists', `role ${name} already exists`),
        changedMeanwhile,
      },
    });
  }
}

export const roleNotFound = (name: string) => new ApiError('not_found', `role ${name} not found`);

export const roleFromItem = (item: Item): Role => readWithRevision<Role>(item);
