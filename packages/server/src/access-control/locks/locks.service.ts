import { randomUUID } from 'node:crypto';
import {
  lockTargetKinds,
  lockTargetsSchema,
  type CreateLockRequest,
  type LockJson,
  type LockTargetKind,
} from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { badParameter } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import { assertMay, visible, type Actor } from '../access/actor.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit } from '../../modules/audit/emit.js';
import { parseDuration } from '../rbac/index.js';
import { lockNotFound, type LockResource, type LocksStore } from './locks.store.js';

/** A parsed create request (the contracts' schema applied): one target, a message, an end. */
export interface NewLock {
  targets: Partial<Record<LockTargetKind, string>>;
  message?: string;
  /** A duration from now ('30m', '1h30m'); empty or absent with no `expires`: until deleted. */
  ttl?: string;
  /** RFC 3339. */
  expires?: string;
}

/**
 * Session and identity locks: creating, listing and deleting them, who may, and their audit
 * events. Enforcement is the LockWatcher's, which sees every write through the backend's watch.
 */
export class LocksService {
  constructor(
    private readonly store: LocksStore,
    private readonly audit: AuditStore,
    private readonly now: Clock,
  ) {}

  /** Locks in force that the actor may read, oldest first; filtered before any pagination. */
  async list(actor: Actor): Promise<LockResource[]> {
    const live = (await this.store.list()).filter((lock) => this.inForce(lock));
    return visible(actor, 'lock', live).sort((a, b) =>
      a.spec.createdAt.localeCompare(b.spec.createdAt),
    );
  }

  async create(input: NewLock | CreateLockRequest, actor: Actor): Promise<LockResource> {
    const target = oneTarget(input.targets);
    const now = this.now();
    const expires = this.expiry(input, now);
    const lock: LockResource = {
      kind: 'lock',
      version: 'v2',
      metadata: { name: randomUUID() },
      spec: {
        target,
        message: input.message?.trim() ?? '',
        ...(expires ? { expires } : {}),
        createdBy: actor.name,
        createdAt: new Date(now).toISOString(),
      },
    };
    assertMay(actor, 'lock', 'create', lock, describeTarget(lock));
    await this.store.create(lock);
    await emitAudit(this.audit, 'TLK00I', {
      user: actor.name,
      name: lock.metadata.name,
      target,
      message: lock.spec.message,
      ...(expires ? { expires } : {}),
    });
    return lock;
  }

  async remove(name: string, actor: Actor): Promise<void> {
    const lock = await this.store.get(name);
    if (!lock) throw lockNotFound(name);
    assertMay(actor, 'lock', 'delete', lock, name);
    await this.store.delete(name);
    await emitAudit(this.audit, 'TLK01I', { user: actor.name, name, target: lock.spec.target });
  }

  private inForce(lock: LockResource): boolean {
    return !lock.spec.expires || Date.parse(lock.spec.expires) > this.now();
  }

  private expiry(input: NewLock, now: number): string | undefined {
    if (input.ttl && input.expires) throw badParameter('give ttl or expires, not both');
    if (input.expires) {
      const at = Date.parse(input.expires);
      if (!Number.isFinite(at)) throw badParameter('expires: expected an RFC 3339 time');
      if (at <= now) throw badParameter('expires: the time has passed already');
      return new Date(at).toISOString();
    }
    if (!input.ttl) return undefined;
    const ms = parseDuration(input.ttl);
    if (ms === undefined) {
      throw badParameter(
        `ttl: expected a duration like '30m', '5h' or '1h30m', got '${input.ttl}'`,
      );
    }
    if (ms <= 0)
      throw badParameter('ttl must be longer than 0; leave it out for a lock that stays');
    return new Date(now + ms).toISOString();
  }
}

/** The lock as the Locks screen lists it. */
export function lockJson(lock: LockResource): LockJson {
  return {
    name: lock.metadata.name,
    message: lock.spec.message,
    expires: lock.spec.expires ?? '',
    createdAt: lock.spec.createdAt,
    createdBy: lock.spec.createdBy,
    targets: lockTargetKinds.flatMap((kind) => {
      const name = lock.spec.target[kind];
      return name === undefined ? [] : [{ kind, name }];
    }),
  };
}

export const describeTarget = (lock: LockResource) =>
  lockJson(lock)
    .targets.map((target) => `${target.kind} ${target.name}`)
    .join(', ');

/**
 * The one target, checked by the contracts' rules whoever asks (the API, `postern locks add`,
 * the bots' own locks): a device, request or bot instance is named by its id, so a lock that
 * could never match anything is refused rather than kept.
 */
function oneTarget(targets: NewLock['targets']): LockResource['spec']['target'] {
  const named = Object.fromEntries(Object.entries(targets).filter(([, name]) => name?.trim()));
  const checked = parseInput(lockTargetsSchema, named);
  return Object.fromEntries(Object.entries(checked).filter(([, name]) => name !== undefined));
}
