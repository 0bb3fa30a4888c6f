import { randomBytes, randomInt } from 'node:crypto';
import type { DatabaseRecord } from '../db-kind.js';

/** A session's real key at the database, under the key the proxy gave its client instead. */
export interface CancelTarget {
  /** The Postern user whose session it is: only they may cancel its queries. */
  user: string;
  db: DatabaseRecord;
  pid: number;
  secret: Buffer;
}

/**
 * The keys of live sessions' `BackendKeyData`. The proxy hands its clients keys of its own, so a
 * client never learns the database's process id and secret, and a `CancelRequest` (which arrives
 * on a new connection, with no user name in it) is matched here to the session and forwarded
 * with the real key.
 */
export class CancelKeys {
  readonly #targets = new Map<string, CancelTarget>();

  /** The key to give the client for `target`. */
  issue(target: CancelTarget): { pid: number; secret: Buffer } {
    for (;;) {
      const pid = randomInt(1, 2 ** 31 - 1);
      const secret = randomBytes(target.secret.length || 4);
      const key = keyOf(pid, secret);
      if (this.#targets.has(key)) continue;
      this.#targets.set(key, target);
      return { pid, secret };
    }
  }

  find(pid: number, secret: Buffer): CancelTarget | undefined {
    return this.#targets.get(keyOf(pid, secret));
  }

  drop(pid: number, secret: Buffer): void {
    this.#targets.delete(keyOf(pid, secret));
  }

  get size(): number {
    return this.#targets.size;
  }
}

/** Whose queries a cancel may stop: through the tunnel, a session of this user on this database. */
export interface CancelScope {
  user: string;
  db: string;
}

/** Whether `target` is in `scope` (no scope: the key alone decides, as at PostgreSQL). */
export const inScope = (target: CancelTarget, scope: CancelScope | undefined): boolean =>
  !scope || (target.user === scope.user && target.db.metadata.name === scope.db);

const keyOf = (pid: number, secret: Buffer) => `${pid}:${secret.toString('hex')}`;
