import { clientConfigSchema, type ClientConfig } from '@postern/contracts';
import { readDateFormat, type DateFormat } from './consoleSettings';
import { formatDatePattern } from './dateFormat';

const pad = (n: number) => String(n).padStart(2, '0');

/** Spec §9's formats, which are also the client configuration's defaults. */
const specDateFormats = clientConfigSchema.parse({}).loc;
let clusterDateFormats = specDateFormats;

/**
 * The cluster's formats (GRV_CONFIG loc, spec §3), which the console uses when the user has not
 * picked a date format in Console Settings. main.tsx sets them at start-up; no argument goes back
 * to spec §9's (tests).
 */
export function setClusterDateFormats(loc: ClientConfig['loc'] = specDateFormats): void {
  clusterDateFormats = loc;
}

/*
 * Which format wins: the date format the user picked in Console Settings (stored in this
 * browser; it says how dates are written, and a time follows it as HH:mm:ss), else the cluster's
 * loc.dateFormat / loc.dateTimeFormat. The user's choice is theirs and local; the cluster's
 * only sets the default.
 */

/** A date in the user's chosen format, else the cluster's loc.dateFormat. */
export function formatDate(date: Date, format: DateFormat | undefined = readDateFormat()): string {
  return formatDatePattern(date, format ?? clusterDateFormats.dateFormat);
}

/** A date and time: the user's date format then HH:mm:ss, else the cluster's loc.dateTimeFormat. */
export function formatDateTime(
  date: Date,
  format: DateFormat | undefined = readDateFormat(),
): string {
  return formatDatePattern(date, format ? `${format} HH:mm:ss` : clusterDateFormats.dateTimeFormat);
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
