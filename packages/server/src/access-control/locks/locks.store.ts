import type { LockTargetKind } from '@postern/contracts';
import { NotFoundError, type Backend, type Item } from '../../backend/index.js';
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
 * locks leave the storage by themselves. Readers still compare `expires` with their clock.
 */
export class LocksStore {
  constructor(private readonly backend: Backend) {}

  async list(): Promise<LockResource[]> {
    const { items } = await this.backend.list({ prefix: locksPrefix });
    return items.map(lockFromItem);
  }

  async get(name: string): Promise<LockResource | null> {
    if (!isLockName(name)) return null;
    const item = await this.backend.get(locksPrefix + name);
    return item ? lockFromItem(item) : null;
  }

  async create(lock: LockResource): Promise<void> {
    await this.backend.create({
      key: locksPrefix + lock.metadata.name,
      value: JSON.stringify(lock),
      ...(lock.spec.expires ? { expires: new Date(lock.spec.expires) } : {}),
    });
  }

  async delete(name: string): Promise<void> {
    try {
      if (!isLockName(name)) throw new NotFoundError(name);
      await this.backend.delete(locksPrefix + name);
    } catch (error) {
      if (error instanceof NotFoundError) throw lockNotFound(name);
      throw error;
    }
  }
}

export const lockFromItem = (item: Item) => JSON.parse(item.value) as LockResource;

/** Lock names are UUIDs; anything else cannot name one (and never reaches the backend). */
export const isLockName = (name: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(name);
