import type { WatchedCache } from '../../backend/watched-cache.js';
import type { Clock } from '../../clock.js';
import { indexResource, type IndexedResource, type ResourceKind } from './resource-kind.js';
import { SortedEntries } from './sorted-entries.js';

export type ChangeListener<R> = (
  removed: IndexedResource<R> | undefined,
  added: IndexedResource<R> | undefined,
) => void;

/**
 * The watch-fed records of one kind, kept in every order its listing offers, so that a page walks
 * from its start key instead of sorting all records. Fed by the cache's put and delete events, so
 * it is as current as the cache. Kinds index more by listening to its changes (nodes by address).
 */
export class ResourceIndex<R> {
  private readonly byId = new Map<string, IndexedResource<R>>();
  private readonly orders = new Map<string, SortedEntries<IndexedResource<R>>>();
  /** Records by id alone: the status sort walks it once per status (status changes with the clock). */
  readonly idOrder: SortedEntries<IndexedResource<R>>;
  private readonly listeners: ChangeListener<R>[] = [];

  constructor(
    private readonly kind: ResourceKind<R, string>,
    cache: WatchedCache<R>,
    private readonly now: Clock,
  ) {
    const all = () => this.byId.values();
    for (const field of Object.keys(kind.sortValues)) {
      this.orders.set(field, new SortedEntries((entry) => entry.sortValues[field] ?? '', all));
    }
    this.idOrder = new SortedEntries(() => '', all);
    cache.on('put', (_name: string, record: R) => this.put(record));
    cache.on('delete', (name: string) => this.remove(name));
  }

  /** Called with the entry a change replaced and the one it added (either may be missing). */
  onChange(listener: ChangeListener<R>): void {
    this.listeners.push(listener);
  }

  get(id: string): IndexedResource<R> | undefined {
    return this.byId.get(id);
  }

  /** Every entry, live or not, in no particular order. */
  all(): IterableIterator<IndexedResource<R>> {
    return this.byId.values();
  }

  /** Applies pending changes to every order now (after a bulk load). */
  warm(): void {
    for (const order of this.orders.values()) order.entries();
    this.idOrder.entries();
  }

  /** The order of a sort field the kind declares. */
  order(field: string): SortedEntries<IndexedResource<R>> {
    const order = this.orders.get(field);
    if (!order) throw new Error(`no order '${field}' for ${this.kind.accessKind} records`);
    return order;
  }

  // The backend drops expired records by itself, a little later; the clock decides meanwhile.
  readonly live = (entry: IndexedResource<R>): boolean => entry.expiresMs > this.now();

  private put(record: R): void {
    const removed = this.detach(this.kind.idOf(record));
    const added = indexResource(this.kind, record);
    this.byId.set(added.id, added);
    this.changed(removed, added);
  }

  private remove(id: string): void {
    const removed = this.detach(id);
    if (removed) this.changed(removed, undefined);
  }

  private detach(id: string): IndexedResource<R> | undefined {
    const entry = this.byId.get(id);
    if (entry) this.byId.delete(id);
    return entry;
  }

  private changed(removed: IndexedResource<R> | undefined, added: IndexedResource<R> | undefined) {
    for (const order of this.orders.values()) order.changed(removed, added);
    this.idOrder.changed(removed, added);
    for (const listener of this.listeners) listener(removed, added);
  }
}
