/** Spec §9 date formats, in the browser's time zone. */
const pad = (n: number) => String(n).padStart(2, '0');

/** YYYY-MM-DD */
export function formatDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** YYYY-MM-DD HH:mm:ss */
export function formatDateTime(date: Date): string {
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return `${formatDate(date)} ${time}`;
}

/** A date from an RFC 3339 string, or undefined for empty, invalid or zero (year 1) values. */
export function parseTimestamp(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) || date.getUTCFullYear() <= 1 ? undefined : date;
}
