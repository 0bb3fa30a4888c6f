/** A time range picked from presets, or a custom from/to the user typed (Audit Log, Recordings). */
export type RangePreset = 'today' | '7d' | '30d' | 'custom';

export interface TimeRangeFilter {
  preset: RangePreset;
  /** For 'custom': `datetime-local` values (local time, `YYYY-MM-DDTHH:mm`). */
  customFrom: string;
  customTo: string;
}

export const presetLabels: Record<RangePreset, string> = {
  today: 'Today',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  custom: 'Custom range',
};

const dayMs = 24 * 3600 * 1000;

/** A preset, with a custom range of the last day ready for when the user switches to custom. */
export function initialTimeRange(preset: RangePreset, now: Date): TimeRangeFilter {
  return {
    preset,
    customFrom: toLocalInput(new Date(now.getTime() - dayMs)),
    customTo: toLocalInput(now),
  };
}

/**
 * The `[from, to)` a filter searches. Presets end now; Today starts at local midnight. A custom
 * range with a missing or reversed end is returned as undefined, so nothing is fetched.
 */
export function rangeOf(filter: TimeRangeFilter, now: Date): { from: Date; to: Date } | undefined {
  switch (filter.preset) {
    case 'today': {
      const midnight = new Date(now);
      midnight.setHours(0, 0, 0, 0);
      return { from: midnight, to: now };
    }
    case '7d':
      return { from: new Date(now.getTime() - 7 * dayMs), to: now };
    case '30d':
      return { from: new Date(now.getTime() - 30 * dayMs), to: now };
    case 'custom': {
      const from = new Date(filter.customFrom);
      const to = new Date(filter.customTo);
      const valid = Number.isFinite(from.getTime()) && Number.isFinite(to.getTime());
      return valid && from < to ? { from, to } : undefined;
    }
  }
}

/** A Date as a `datetime-local` input shows it: local time, to the minute. */
export function toLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}
