import { randomUUID } from 'node:crypto';
import { AlreadyExistsError, CompareFailedError, NotFoundError, type Backend } from './types.js';

interface Lease {
  id: string;
  /** Epoch ms: a lease its holder stopped renewing (a crashed proxy) counts until then. */
  expires: number;
}

/** A held lease: renewed in the background until released. */
export interface SemaphoreLease {
  release(): Promise<void>;
}

export interface SemaphoreOptions {
  /** Keys are `<prefix><name>`, e.g. `/semaphores/connections/alice`. */
  prefix: string;
  /** How long a lease lives without renewal (default 30 s); renewed every third of it. */
  leaseTtlMs?: number;
  now?: () => number;
  log?: (message: string, fields?: object) => void;
}

/** The semaphore is full: `holders` leases are in force. */
export class SemaphoreFullError extends Error {
  constructor(readonly holders: number) {
    super(`${holders} leases in force`);
    this.name = 'SemaphoreFullError';
  }
}

const maxAttempts = 200;

/**
 * A counting semaphore in the key-value backend, shared by every process on the same storage
 * (max_connections across proxies). One item per name holds the live leases; every change is a
 * create-if-absent or a compare-and-swap on its revision, retried on conflict, so parallel
 * acquirers on several proxies never exceed the limit. Each lease has an expiry its holder
 * renews; a proxy that crashes stops renewing and its leases lapse (and the item itself carries
 * the backend TTL of its latest lease, so an abandoned one disappears).
 */
export class BackendSemaphore {
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly backend: Backend,
    private readonly options: SemaphoreOptions,
  ) {
    this.ttlMs = options.leaseTtlMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** Takes one of `limit` leases on `name`, or throws SemaphoreFullError. */
  async acquire(name: string, limit: number): Promise<SemaphoreLease> {
    const id = randomUUID();
    await this.change(name, (leases) => {
      if (leases.length >= limit) throw new SemaphoreFullError(leases.length);
      return [...leases, { id, expires: this.now() + this.ttlMs }];
    });
    let released = false;
    const renew = setInterval(() => {
      this.change(name, (leases) => {
        const mine = leases.find((lease) => lease.id === id);
        if (!mine) return undefined; // lapsed: nothing to renew (the holder goes on; rare)
        mine.expires = this.now() + this.ttlMs;
        return leases;
      }).catch((error: unknown) =>
        this.options.log?.('semaphore: renewing a lease failed', { name, error: String(error) }),
      );
    }, this.ttlMs / 3);
    renew.unref();
    return {
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await this.change(name, (leases) => leases.filter((lease) => lease.id !== id)).catch(
          (error: unknown) =>
            this.options.log?.('semaphore: releasing a lease failed', {
              name,
              error: String(error),
            }),
        );
      },
    };
  }

  /** The leases in force on `name` now. */
  async holders(name: string): Promise<number> {
    const item = await this.backend.get(this.key(name));
    return item ? this.live(item.value).length : 0;
  }

  /**
   * Applies `update` to the live leases until the write lands: create when absent, else a
   * compare-and-swap on the revision read. `update` returning undefined writes nothing.
   */
  private async change(
    name: string,
    update: (leases: Lease[]) => Lease[] | undefined,
  ): Promise<void> {
    const key = this.key(name);
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const item = await this.backend.get(key);
      const next = update(item ? this.live(item.value) : []);
      if (next === undefined) return;
      const value = JSON.stringify({ leases: next });
      const expires = new Date(Math.max(this.now(), ...next.map((l) => l.expires)) + this.ttlMs);
      try {
        if (!item) await this.backend.create({ key, value, expires });
        else if (next.length === 0) await this.backend.delete(key, item.revision);
        else await this.backend.update({ key, value, expires }, item.revision);
        return;
      } catch (error) {
        const lost =
          error instanceof CompareFailedError ||
          error instanceof AlreadyExistsError ||
          error instanceof NotFoundError;
        if (!lost) throw error;
        // Someone else changed it first: read again, after a short random pause so that many
        // contenders do not keep colliding in step.
        await new Promise((resolve) =>
          setTimeout(resolve, Math.random() * Math.min(50, 2 + attempt)),
        );
      }
    }
    throw new Error(`semaphore ${name}: too much contention, try again`);
  }

  private live(value: string): Lease[] {
    const now = this.now();
    try {
      const { leases } = JSON.parse(value) as { leases?: Lease[] };
      return (leases ?? []).filter((lease) => lease.expires > now);
    } catch {
      return [];
    }
  }

  private key(name: string): string {
    return `${this.options.prefix}${encodeURIComponent(name)}`;
  }
}
