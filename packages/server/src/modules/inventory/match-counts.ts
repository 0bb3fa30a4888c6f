import type { Clock } from '../../clock.js';
import type { ResourceIndex } from './resource-index.js';
import type { IndexedResource } from './resource-kind.js';

interface Memo<R> {
  /** Whether an entry counts (liveness aside): the caller's access and filter. */
  counts: (entry: IndexedResource<R>) => boolean;
  count: number;
  /** The earliest expiry among the entries counted: the count is stale from then on. */
  validUntil: number;
}

/** How many counts are kept up to date; each costs a check per changed record. */
const maxMemos = 64;

/**
 * How many live records one viewer's listing matches (its `totalCount`, and for nodes the
 * `GET /sites` node count), counted once and then kept current from the index's changes, so a page does not
 * have to look at every record to say how many there are. Keyed by the viewer's access object
 * (a RoleSet is immutable and shared while roles and users stay the same) and the filter.
 */
export class MatchCounts<R> {
  /** In order of last use: the one used longest ago goes first when there are too many. */
  private readonly memos = new Map<string, Memo<R>>();
  private readonly viewerIds = new WeakMap<object, number>();
  private nextViewerId = 1;

  constructor(
    private readonly index: ResourceIndex<R>,
    private readonly now: Clock,
  ) {
    index.onChange((removed, added) => this.changed(removed, added));
  }

  count(
    viewer: object | null,
    filterKey: string,
    counts: (entry: IndexedResource<R>) => boolean,
  ): number {
    const now = this.now();
    const key = `${this.viewerId(viewer)}\n${filterKey}`;
    const memo = this.memos.get(key);
    this.memos.delete(key);
    if (memo && now < memo.validUntil) {
      this.memos.set(key, memo);
      return memo.count;
    }
    const fresh: Memo<R> = { counts, count: 0, validUntil: Infinity };
    for (const entry of this.index.all()) {
      if (entry.expiresMs > now && counts(entry)) {
        fresh.count++;
        fresh.validUntil = Math.min(fresh.validUntil, entry.expiresMs);
      }
    }
    if (this.memos.size >= maxMemos) this.memos.delete(this.memos.keys().next().value!);
    this.memos.set(key, fresh);
    return fresh.count;
  }

  // 0 is the host's administrator (no role set); a role set gets a number for as long as it lives.
  private viewerId(viewer: object | null): number {
    if (viewer === null) return 0;
    let id = this.viewerIds.get(viewer);
    if (id === undefined) this.viewerIds.set(viewer, (id = this.nextViewerId++));
    return id;
  }

  private changed(
    removed: IndexedResource<R> | undefined,
    added: IndexedResource<R> | undefined,
  ): void {
    const now = this.now();
    for (const memo of this.memos.values()) {
      // A stale memo is recounted when next asked; an entry it counted may have expired since.
      if (now >= memo.validUntil) continue;
      if (removed && removed.expiresMs > now && memo.counts(removed)) memo.count--;
      if (added && added.expiresMs > now && memo.counts(added)) {
        memo.count++;
        memo.validUntil = Math.min(memo.validUntil, added.expiresMs);
      }
    }
  }
}
