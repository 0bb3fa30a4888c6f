import { createHash, randomBytes } from 'node:crypto';
import { CompareFailedError, NotFoundError, type Backend } from '../backend/index.js';
import type { Clock } from '../clock.js';

/**
 * One-time tokens of the sign-in flows: SSO states (sso-state.store.ts), and for the CLI's sign-in
 * the begin link the browser opens and the code it brings back to the CLI's loopback
 * (console-login.service.ts). 256 random bits, kept under their SHA-256 (reading the storage
 * gives nothing usable), taken by a delete at the revision read so that of two racing uses only
 * one wins (the replay protection), and refused once expired.
 */
export class OneTimeStore<T extends object> {
  constructor(
    private readonly backend: Backend,
    private readonly now: Clock,
    private readonly prefix: string,
    readonly ttlMs: number,
  ) {}

  /** Stores the value and returns its token: 256 random bits, base64url. */
  async create(value: T): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const expires = new Date(this.now() + this.ttlMs);
    await this.backend.create({
      key: this.keyOf(token),
      value: JSON.stringify({ value, expires: expires.toISOString() }),
      expires,
    });
    return token;
  }

  /** The value, once: null when unknown, expired or already taken. */
  async consume(token: string): Promise<T | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const item = await this.backend.get(this.keyOf(token));
    if (!item) return null;
    try {
      await this.backend.delete(item.key, item.revision);
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof CompareFailedError) return null;
      throw error;
    }
    const stored = JSON.parse(item.value) as { value: T; expires: string };
    return Date.parse(stored.expires) > this.now() ? stored.value : null;
  }

  private keyOf(token: string) {
    return this.prefix + createHash('sha256').update(token).digest('hex');
  }
}
