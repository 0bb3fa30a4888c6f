/**
 * The trigrams of the text index (audit-text.sqlite.ts), hashed into buckets.
 *
 * A search's text matches an event when its JSON holds the text, ignoring ASCII case (SQLite's
 * LIKE). Both sides are read as UTF-16 code units with A-Z folded to a-z and nothing else
 * folded, so every trigram of a matching text is a trigram of the event: the index may find
 * rows that do not match (LIKE removes them), never miss one that does. The hash is part of the
 * file format: changing it means a new format number and a rebuild.
 */

/** The folded code unit: ASCII letters lower-cased, as LIKE compares them. */
const fold = (unit: number) => (unit >= 65 && unit <= 90 ? unit | 32 : unit);

/** Calls `visit` with the bucket of each trigram of `text` (repeats included), in order. */
export function forEachBucket(text: string, bucketBits: number, visit: (bucket: number) => void) {
  const shift = 32 - bucketBits;
  let a = 0;
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    const c = fold(text.charCodeAt(i));
    if (i >= 2) visit(bucketOf(a, b, c) >>> shift);
    a = b;
    b = c;
  }
}

/** The distinct buckets of a search text's trigrams (none when it has fewer than three units). */
export function textBuckets(text: string, bucketBits: number): number[] {
  const buckets = new Set<number>();
  forEachBucket(wellFormed(text), bucketBits, (bucket) => buckets.add(bucket));
  return [...buckets];
}

/**
 * The text as SQLite gets it: a lone surrogate becomes U+FFFD on the way to UTF-8, so LIKE looks
 * for that. Events need nothing of the kind: JSON.stringify escapes lone surrogates.
 */
function wellFormed(text: string): string {
  return text.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  );
}

/** A multiplicative mix of three 16-bit units; its top bits are the bucket. */
export function bucketOf(a: number, b: number, c: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d);
  h ^= h >>> 15;
  return Math.imul(h, 0x27d4eb2f);
}
