/** Something the index orders: its sort value (already lower-cased) and its id. */
export interface Keyed {
  readonly id: string;
}

/** A position in one order: the sort value, then the id so that ties stay stable. */
export interface Position {
  value: string;
  id: string;
}

// Plain code-unit order: the same on every proxy and for every locale, which keyset paging needs.
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
export const comparePositions = (a: Position, b: Position) =>
  compareText(a.value, b.value) || compareText(a.id, b.id);

type Change<T> = { removed?: T; added?: T };

/**
 * Entries in one order, kept as a sorted array. Changes are queued and applied when the order is
 * next read: one at a time by binary search when they are few, by one sort when they are many (a
 * watch's first list, a re-list), so neither a burst of writes nor a read pays per entry twice.
 */
export class SortedEntries<T extends Keyed> {
  private sorted: T[] = [];
  private pending: Change<T>[] = [];

  constructor(
    private readonly valueOf: (entry: T) => string,
    /** Every entry now: what a full re-sort starts from. */
    private readonly all: () => Iterable<T>,
  ) {}

  position(entry: T): Position {
    return { value: this.valueOf(entry), id: entry.id };
  }

  changed(removed: T | undefined, added: T | undefined): void {
    this.pending.push({ removed, added });
  }

  /** The entries in ascending order; the array is the index's own: read it, never change it. */
  entries(): readonly T[] {
    if (this.pending.length === 0) return this.sorted;
    if (this.pending.length > 64 && this.pending.length * 8 > this.sorted.length) {
      const { valueOf } = this;
      this.sorted = [...this.all()].sort(
        (a, b) => compareText(valueOf(a), valueOf(b)) || compareText(a.id, b.id),
      );
    } else {
      for (const { removed, added } of this.pending) {
        if (removed) {
          const at = this.firstAtOrAfter(this.position(removed));
          if (this.sorted[at] === removed) this.sorted.splice(at, 1);
        }
        if (added) this.sorted.splice(this.firstAtOrAfter(this.position(added)), 0, added);
      }
    }
    this.pending = [];
    return this.sorted;
  }

  /** The index of the first entry at or after `at` (the length if none). */
  firstAtOrAfter(at: Position): number {
    return this.search((entry) => comparePositions(this.position(entry), at) >= 0);
  }

  /** The index of the first entry strictly after `at`. */
  firstAfter(at: Position): number {
    return this.search((entry) => comparePositions(this.position(entry), at) > 0);
  }

  // Binary search for the first entry `past` holds for (it holds for a suffix of the order).
  private search(past: (entry: T) => boolean): number {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (past(this.sorted[middle]!)) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}
