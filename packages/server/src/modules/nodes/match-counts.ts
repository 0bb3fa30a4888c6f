import type { Clock } from '../../clock.js';
import type { IndexedNode, NodeIndex } from './node-index.js';

interface Memo {
  /** Whether an entry counts (liveness aside): the caller's access and filter. */
  counts: (entry: IndexedNode) => boolean;
  count: number;
  /** The earliest expiry among the entries counted: the count is stale from then on. */
  validUntil: number;
}

/** How many counts are kept up to date; each costs a check per changed record. */
const maxMemos = 64;

/**
 * How many live records one viewer's listing matches (its `totalCount`, and the `GET /sites`
 * node count), counted once and then kept current from the index's changes, so a page does not
 * have to look at every record to say how many there are. Keyed by the viewer's access object
 * (a RoleSet is immutable and shared while roles and users stay the same) and the filter.
 */
export class MatchCounts {
  private memos = new Map<object | null, Map<string, Memo>>();
  private size = 0;

  constructor(
    private readonly index: NodeIndex,
    private readonly now: Clock,
  ) {
    index.onChange((removed, added) => this.changed(removed, added));
  }

  count(viewer: object | null, filterKey: string, counts: (entry: IndexedNode) => boolean): number {
    const now = this.now();
    const memo = this.memos.get(viewer)?.get(filterKey);
    if (memo && now < memo.validUntil) return memo.count;
    const fresh: Memo = { counts, count: 0, validUntil: Infinity };
    for (const entry of this.index.all()) {
      if (entry.expiresMs > now && counts(entry)) {
        fresh.count++;
        fresh.validUntil = Math.min(fresh.validUntil, entry.expiresMs);
      }
    }
    this.remember(viewer, filterKey, fresh, !memo);
    return fresh.count;
  }

  private remember(viewer: object | null, filterKey: string, memo: Memo, isNew: boolean): void {
    if (isNew && this.size >= maxMemos) {
      this.memos = new Map();
      this.size = 0;
    }
    const forViewer = this.memos.get(viewer) ?? new Map<string, Memo>();
    this.memos.set(viewer, forViewer.set(filterKey, memo));
    if (isNew) this.size++;
  }

  private changed(removed: IndexedNode | undefined, added: IndexedNode | undefined): void {
    const now = this.now();
    for (const forViewer of this.memos.values()) {
      for (const memo of forViewer.values()) {
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
}
