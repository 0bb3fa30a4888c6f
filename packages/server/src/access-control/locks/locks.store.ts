import type { LockTargetKind } from '@postern/contracts';
import { isUuid, RevisionedStore, type Backend, type Item } from '../../backend/index.js';
import { notFound } from '../../errors.js';

export const locksPrefix = '/locks/';

/** A lock as stored under `/locks/<uuid>`, in the reference's resource layout. */
export interface LockResource {
  kind: 'lock';
  version: 'v2';
  metadata: { name: string };
  spec: {
    /** Exactly one kind is set. */
    target: Partial<Record<LockTargetKind, string>>;
    message: string;
    /** RFC 3339; absent: in force until deleted. */
    expires?: string;
    createdBy: string;
    createdAt: string;
  };
}

export const lockNotFound = (name: string) => notFound(`lock ${name} not found`);

/**
 * Locks under `/locks/<uuid>`, with the backend's TTL set to the lock's expiry so that expired
 * locks leave the storage by themselves. Readers still compare `expires` with their clock. Locks
 * are never updated: a changed lock is a new one.
 */
export class LocksStore extends RevisionedStore<LockResource> {
  constructor(backend: Backend) {
    super(backend, {
      prefix: locksPrefix,
      keyOf: (name) => name,
      refOf: (lock) => lock.metadata.name,
      revisionInMetadata: false,
      expiresOf: (lock) => lock.spec.expires,
      isRef: isLockName,
      // Names are fresh UUIDs, so a clash is a fault and reaches the caller as the backend's.
      errors: { notFound: lockNotFound },
    });
  }
}

export const lockFromItem = (item: Item) => JSON.parse(item.value) as LockResource;

/** Lock names are UUIDs; anything else cannot name one (and never reaches the backend). */
export const isLockName = (name: string) => isUuid(name);
