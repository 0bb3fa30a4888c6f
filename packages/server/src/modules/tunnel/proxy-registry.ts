import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AlreadyExistsError, type Backend, type Item } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import type { ProxyAddress } from './tunnel-protocol.js';

/** `/proxies/<proxy id>`: one record per running proxy, kept alive by its heartbeat. */
export const proxiesPrefix = '/proxies/';

const recordSchema = z.object({
  id: z.string().min(1),
  /** Where agents reach this proxy: its public address as a base URL. */
  addr: z.string().min(1),
  /** SHA-256 of the process's secret: only the process that created the record refreshes it. */
  owner: z.string().min(1),
});
type ProxyRecord = z.infer<typeof recordSchema>;

/** Another process holds the record under this proxy's id: it is never taken over. */
export class ProxyIdTakenError extends Error {
  override name = 'ProxyIdTakenError';
  constructor(id: string) {
    super(`proxy id ${id} is registered by another process`);
  }
}

export interface ProxyRegistryOptions {
  backend: Backend;
  /** This proxy's id (default: a random UUID, per process). */
  id?: string;
  /** The base URL agents reach this proxy at (`https://public_addr`), read on every refresh. */
  address: () => string;
  /** The record's life in the backend (default 30 s), refreshed every `refreshMs` (default 10 s). */
  ttlMs?: number;
  refreshMs?: number;
  /** Told about watch failures and failed refreshes. */
  onError: (error: unknown, what: string) => void;
  /** Told the whole list whenever it changes (a proxy came, left or moved). */
  onChange?: (proxies: ProxyAddress[]) => void;
}

/**
 * The proxies of the cluster (docs/high-availability.md): each process registers itself under
 * `/proxies/<id>` with the address agents reach it at and a TTL it refreshes, and watches the
 * others' records. Agents are told the list, so each keeps a tunnel to every proxy.
 */
export class ProxyRegistry {
  readonly id: string;
  private readonly owner: string;
  private readonly cache: WatchedCache<ProxyRecord>;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private announced = false;
  private closed = false;
  private readonly leaveListeners = new Set<() => void>();

  constructor(private readonly options: ProxyRegistryOptions) {
    this.id = options.id ?? randomUUID();
    this.owner = createHash('sha256').update(randomBytes(32)).digest('hex');
    this.cache = new WatchedCache(options.backend, {
      prefix: proxiesPrefix,
      parse: (item: Item) => recordSchema.parse(JSON.parse(item.value)),
      onError: (error) => options.onError(error, 'watching the proxies failed; listing again'),
    });
    const changed = () => options.onChange?.(this.list());
    this.cache.on('put', changed);
    this.cache.on('delete', () => {
      changed();
      for (const listener of this.leaveListeners) listener();
    });
  }

  /**
   * Calls `listener` whenever a proxy's record goes (a graceful stop, or its TTL ran out after a
   * crash), so what it left can be finished at once rather than at the next periodic look.
   * Returns the unsubscribe.
   */
  onLeave(listener: () => void): () => void {
    this.leaveListeners.add(listener);
    return () => this.leaveListeners.delete(listener);
  }

  /** Loads the list of proxies and watches it. */
  async start(): Promise<void> {
    await this.cache.start();
    this.options.onChange?.(this.list());
  }

  /**
   * Whether `list()` can be trusted to say which proxies are gone: loaded, not re-listing after
   * a watch failure, and this proxy announced (so it does not take itself for dead).
   */
  isCurrent(): boolean {
    return this.cache.loaded && !this.cache.stale && this.announced && !this.closed;
  }

  /** The live proxies, this one included once it announced itself, by id. */
  list(): ProxyAddress[] {
    return this.cache
      .values()
      .map(({ id, addr }) => ({ id, addr }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * Registers this proxy (once it listens, so its address is known) and keeps the record alive.
   * Rejects with ProxyIdTakenError when another process holds the id.
   */
  async announce(): Promise<void> {
    if (this.closed || this.announced) return;
    await this.refresh();
    this.announced = true;
    this.timer = setInterval(() => {
      this.refreshing ??= this.refresh()
        .catch((error: unknown) => {
          this.options.onError(error, 'refreshing this proxy’s record failed');
          if (error instanceof ProxyIdTakenError) clearInterval(this.timer);
        })
        .finally(() => {
          this.refreshing = undefined;
        });
    }, this.options.refreshMs ?? 10_000);
    this.timer.unref();
  }

  /** Stops the heartbeat and removes this proxy's record (graceful stop), then the watch. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.refreshing;
    if (this.announced) {
      try {
        const current = await this.options.backend.get(this.key());
        if (current && this.ownedBy(current)) {
          await this.options.backend.delete(this.key(), current.revision);
        }
      } catch (error) {
        this.options.onError(error, 'removing this proxy’s record failed');
      }
    }
    await this.cache.close();
  }

  private key(): string {
    return `${proxiesPrefix}${this.id}`;
  }

  private ownedBy(item: Item): boolean {
    try {
      return recordSchema.parse(JSON.parse(item.value)).owner === this.owner;
    } catch {
      return false;
    }
  }

  /** Creates the record if absent, or renews it if it is ours; never writes over another's. */
  private async refresh(): Promise<void> {
    const { backend } = this.options;
    const record: ProxyRecord = { id: this.id, addr: this.options.address(), owner: this.owner };
    const put = {
      key: this.key(),
      value: JSON.stringify(record),
      expires: new Date(Date.now() + (this.options.ttlMs ?? 30_000)),
    };
    let current = await backend.get(put.key);
    if (!current) {
      try {
        await backend.create(put);
        return;
      } catch (error) {
        if (!(error instanceof AlreadyExistsError)) throw error;
        current = await backend.get(put.key);
        if (!current) throw error;
      }
    }
    if (!this.ownedBy(current)) throw new ProxyIdTakenError(this.id);
    await backend.update(put, current.revision);
  }
}
