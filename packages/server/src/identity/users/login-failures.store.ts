import { BackendError, type Backend } from '../../backend/index.js';

const failuresPrefix = '/login_failures/';

/**
 * Recent failed sign-ins per user, in the backend so every proxy on the same storage counts
 * the same ones; each record expires with the window it counts.
 */
export class LoginFailuresStore {
  constructor(private readonly backend: Backend) {}

  /** Adds a failure at `now`, keeps those within `windowMs`, and returns how many remain. */
  async add(name: string, now: number, windowMs: number): Promise<number> {
    const key = failuresPrefix + name;
    for (let tries = 0; ; tries++) {
      const item = await this.backend.get(key);
      const previous = item ? (JSON.parse(item.value) as { times: number[] }).times : [];
      const times = [...previous.filter((time) => time > now - windowMs), now];
      const next = { key, value: JSON.stringify({ times }), expires: new Date(now + windowMs) };
      try {
        if (item) await this.backend.update(next, item.revision);
        else await this.backend.create(next);
        return times.length;
      } catch (error) {
        // Another proxy counted one at the same moment: read again and add ours to theirs.
        if (!(error instanceof BackendError) || tries >= 5) throw error;
      }
    }
  }

  /** Forgets the user's failures (best effort: a stale count expires with its window). */
  async clear(name: string): Promise<void> {
    await this.backend.delete(failuresPrefix + name).catch(() => undefined);
  }
}
