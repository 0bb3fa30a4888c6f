import { readDateFormat, type DateFormat } from './consoleSettings';

/** Spec §9 date formats, in the browser's time zone. */
const pad = (n: number) => String(n).padStart(2, '0');

/** YYYY-MM-DD by default (spec §9), or the date format chosen in the console settings. */
export function formatDate(date: Date, format: DateFormat = readDateFormat()): string {
  const [y, m, d] = [String(date.getFullYear()), pad(date.getMonth() + 1), pad(date.getDate())];
  switch (format) {
    case 'YYYY-MM-DD':
      return `${y}-${m}-${d}`;
    case 'DD/MM/YYYY':
      return `${d}/${m}/${y}`;
    case 'MM/DD/YYYY':
      return `${m}/${d}/${y}`;
    case 'DD.MM.YYYY':
      return `${d}.${m}.${y}`;
  }
}

/** The date as `formatDate` writes it, then HH:mm:ss (24-hour, spec §9). */
export function formatDateTime(date: Date, format: DateFormat = readDateFormat()): string {
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return `${formatDate(date, format)} ${time}`;
}

/** A date from an RFC 3339 string, or undefined for empty, invalid or zero (year 1) values. */
export function parseTimestamp(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) || date.getUTCFullYear() <= 1 ? undefined : date;
}

/**
 * How long something lasted, one way everywhere (the player, Session Recordings, Active
 * Sessions): `MM:SS`, or `H:MM:SS` from an hour on. Whole seconds, rounded down, so a clock
 * that runs to a total never shows more than the total.
 */
export function formatDuration(ms: number): string {
  const total = Number.isFinite(ms) ? Math.max(0, Math.floor(ms / 1000)) : 0;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = `${pad(minutes)}:${pad(total % 60)}`;
  return hours > 0 ? `${hours}:${seconds}` : seconds;
}
