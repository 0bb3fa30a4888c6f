// Numbers and the printed table.

export const MiB = 1024 * 1024;

/** The q-th quantile (0..1) by nearest rank. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => quantile(values, 0.5);

export function fmt(value, digits = 1) {
  if (typeof value === 'string') return value;
  if (value === undefined || Number.isNaN(value)) return '-';
  return value.toFixed(digits);
}

/**
 * One row per figure: what was measured through the proxy, the baseline from the same run, how
 * they compare, the target and whether it is met. Targets are reported, never asserted.
 */
export function printTable(rows) {
  const header = ['figure', 'postern', 'baseline', 'compare', 'target', ''];
  const cells = rows.map((r) => [r.figure, r.value, r.baseline, r.compare, r.target, r.verdict]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => String(c[i]).length)));
  const line = (c) =>
    c
      .map((cell, i) =>
        i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]),
      )
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

export const verdict = (ok) => (ok === undefined ? '' : ok ? 'met' : 'MISSED');
