/**
 * Go-style durations, as role options carry them: '8h', '30m', '1h30m', '30h0m0s', '1.5h', '500ms'.
 * '0' and 'never' are zero (no limit). Negative durations are not accepted.
 */
const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const durationPattern = /^(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h)/;

/** Milliseconds, or undefined if the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const value = text.trim();
  if (value === '0' || value === 'never') return 0;
  if (value === '') return undefined;
  let rest = value;
  let total = 0;
  while (rest !== '') {
    const match = durationPattern.exec(rest);
    if (!match) return undefined;
    const [token] = match;
    const unit = /[a-zµμ]+$/.exec(token)?.[0] ?? '';
    total += Number(token.slice(0, token.length - unit.length)) * (unitMs[unit] ?? NaN);
    rest = rest.slice(token.length);
  }
  return Number.isFinite(total) ? Math.round(total) : undefined;
}

export const durationHint = "expected a duration like '8h', '30m' or '1h30m'";
