import type { Backend, Item } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import { systemClock, type Clock } from '../../clock.js';
import type { Labelled } from '../../access-control/rbac/index.js';
import type { AccessKind } from '../../access-control/rbac/index.js';
import { MatchCounts } from './match-counts.js';
import {
  compileFilter,
  walkPage,
  type ResourceListCriteria,
  type SortDir,
  type Status,
} from './page-walk.js';
import { ResourceIndex } from './resource-index.js';
import type { IndexedResource, ResourceKind } from './resource-kind.js';

/** A record as a listing sees it: the record, whether it is up, and all its labels. */
export interface ResourceRow<R> {
  resource: R;
  status: Status;
  /** RFC 3339: the last heartbeat (or whatever the kind counts as one); '' if never. */
  lastHeartbeat: string;
  labels: Record<string, string>;
}

/** Who may see which records: a RoleSet fits; null is the host's administrator (all). */
export interface ResourceAccess {
  canAccess(kind: AccessKind, resource: Labelled): boolean;
}

export interface ResourcePage<R> {
  rows: ResourceRow<R>[];
  startKey: string;
  totalCount: number;
}

/** The short-lived "online" marker under `<heartbeatsPrefix><id>`. */
export interface HeartbeatMarker {
  /** RFC 3339: when the resource last reported. */
  time: string;
  /** RFC 3339: when it counts as offline without another heartbeat. */
  expires: string;
}

export interface ResourceInventoryOptions {
  now?: Clock;
  /** Told about watch failures (before the caches list again). */
  onError?: (error: unknown) => void;
}

const markerFromItem = (item: Item) => JSON.parse(item.value) as HeartbeatMarker;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The heartbeated resources of one kind. Records and online markers are held in memory, fed by
 * watches on the kind's two prefixes, so listing never reads storage per request and every proxy
 * on the same storage agrees within the watch's latency. A record is online while its short-lived
 * marker lives; the record itself lives until its own expiry, so a resource that stopped
 * reporting shows offline before it is collected. Listing filters by access before paging, so a
 * page never counts or skips over what the viewer may not see.
 */
export class ResourceInventory<R, F extends string> {
  readonly index: ResourceIndex<R>;
  private readonly now: Clock;
  private readonly records: WatchedCache<R>;
  private readonly markers: WatchedCache<HeartbeatMarker>;
  private readonly counts: MatchCounts<R>;
  private started = false;

  constructor(
    private readonly backend: Backend,
    readonly kind: ResourceKind<R, F>,
    options: ResourceInventoryOptions = {},
  ) {
    this.now = options.now ?? systemClock;
    const { onError } = options;
    this.records = new WatchedCache(backend, {
      prefix: kind.recordsPrefix,
      parse: kind.parse,
      onError,
    });
    this.index = new ResourceIndex(kind, this.records, this.now);
    this.counts = new MatchCounts(this.index, this.now);
    this.markers = new WatchedCache(backend, {
      prefix: kind.heartbeatsPrefix,
      parse: markerFromItem,
      onError,
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.records.start(), this.markers.start()]);
    // The first list arrives as one burst of records: order them now, not in the first request.
    this.index.warm();
    this.started = true;
  }

  async close(): Promise<void> {
    await Promise.all([this.records.close(), this.markers.close()]);
  }

  /** The live record with this id, from memory. */
  get(id: string): R | undefined {
    const record = this.records.get(id);
    return record && this.isLive(record) ? record : undefined;
  }

  /** Every live record with its status and labels, in no particular order. */
  rows(): ResourceRow<R>[] {
    this.assertStarted();
    return [...this.index.all()].filter(this.index.live).map(this.rowOf);
  }

  row(record: R): ResourceRow<R> {
    return this.statusRow(record, this.kind.labelsOf(record));
  }

  readonly rowOf = (entry: IndexedResource<R>): ResourceRow<R> =>
    this.statusRow(entry.resource, entry.labels);

  /** How many live records there are, whoever asks. */
  count(): number {
    this.assertStarted();
    return this.counts.count(null, 'all', () => true);
  }

  /** Live entries `access` may see (all with null), in no particular order. */
  visibleEntries(access: ResourceAccess | null): IndexedResource<R>[] {
    this.assertStarted();
    return [...this.index.all()].filter(
      (entry) => this.index.live(entry) && this.mayAccess(access, entry),
    );
  }

  /**
   * One page of the live records `access` may see that match the criteria, walked from the
   * start key in the order asked (see page-walk.ts). `totalCount` counts only what this viewer
   * may see and the filter admits: no hidden records.
   */
  list(
    criteria: ResourceListCriteria<F>,
    access: ResourceAccess | null,
    defaultSort: { field: F | 'status'; dir: SortDir },
  ): ResourcePage<R> {
    this.assertStarted();
    const matches = compileFilter<R>(criteria.search, criteria.query);
    const counts = (entry: IndexedResource<R>) => matches(entry) && this.mayAccess(access, entry);
    const visible = (entry: IndexedResource<R>) => this.index.live(entry) && counts(entry);
    const statusOf = (entry: IndexedResource<R>) => this.statusOf(entry.id);
    const walkOptions = { index: this.index, isId: this.kind.isId, visible, statusOf };
    const page = walkPage(walkOptions, criteria, defaultSort);
    const filterKey = JSON.stringify([criteria.search, criteria.query]);
    return {
      rows: page.entries.map(this.rowOf),
      startKey: page.startKey,
      totalCount: this.counts.count(access, filterKey, counts),
    };
  }

  /** Writes the online marker: the record counts as online for `ttlMs` from now. */
  async markOnline(id: string, ttlMs = this.kind.heartbeatTtlMs): Promise<void> {
    const now = this.now();
    const marker: HeartbeatMarker = { time: iso(now), expires: iso(now + ttlMs) };
    await this.backend.upsert({
      key: this.kind.heartbeatsPrefix + id,
      value: JSON.stringify(marker),
      expires: new Date(marker.expires),
    });
  }

  // The backend drops expired records by itself, a little later; the clock decides meanwhile.
  readonly isLive = (record: R): boolean => {
    const expires = this.kind.expiresOf(record);
    return !expires || Date.parse(expires) > this.now();
  };

  private mayAccess(access: ResourceAccess | null, entry: IndexedResource<R>): boolean {
    return !access || access.canAccess(this.kind.accessKind, entry);
  }

  private statusOf(id: string): Status {
    const beat = this.markers.get(id);
    return beat !== undefined && Date.parse(beat.expires) > this.now() ? 'online' : 'offline';
  }

  private statusRow(record: R, labels: Record<string, string>): ResourceRow<R> {
    const id = this.kind.idOf(record);
    const beat = this.markers.get(id);
    // The marker has the exact time; once it expired, the record's (refreshed every few minutes).
    const times = [beat?.time, this.kind.lastSeenOf?.(record)].filter(
      (time): time is string => !!time,
    );
    const lastHeartbeat = times.sort().at(-1) ?? '';
    return { resource: record, status: this.statusOf(id), lastHeartbeat, labels };
  }

  // Fail closed: an inventory that never loaded would list nothing and resolve nothing.
  assertStarted(): void {
    if (!this.started) throw new Error('inventory not started');
  }
}
