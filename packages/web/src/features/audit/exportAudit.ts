import type { AuditEventJson } from '@postern/contracts';
import { formatAuditEvent } from '@postern/contracts';

export type ExportFormat = 'jsonl' | 'csv';

/** One raw event per line, exactly as the server returned it. */
export function toJsonLines(events: AuditEventJson[]): string {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}

const csvColumns = ['time', 'code', 'type', 'severity', 'codeDesc', 'user', 'message'] as const;

/** RFC 4180: quote a cell holding a comma, quote or line break, and double its quotes. */
export function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The rows the table shows, one per event, with a header line. */
export function toCsv(events: AuditEventJson[]): string {
  const lines = events.map((event) => {
    const row = formatAuditEvent(event);
    return csvColumns.map((column) => csvCell(row[column])).join(',');
  });
  return [csvColumns.join(','), ...lines].map((line) => `${line}\r\n`).join('');
}

/**
 * Every event of the range, page after page: export is not limited to what the table loaded.
 * Pages are turned into text as they come, so only the text is held, not the parsed events.
 */
export async function exportRange(
  fetchPage: (startKey: string) => Promise<{ events: AuditEventJson[]; startKey: string }>,
  format: ExportFormat,
): Promise<Blob> {
  const parts: string[] = [];
  let startKey = '';
  let first = true;
  do {
    const page = await fetchPage(startKey);
    const text = format === 'csv' ? toCsv(page.events) : toJsonLines(page.events);
    // CSV: keep the header of the first page only.
    parts.push(format === 'csv' && !first ? text.slice(text.indexOf('\r\n') + 2) : text);
    first = false;
    startKey = page.startKey;
  } while (startKey);
  const type = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
  return new Blob(parts, { type });
}

/** Hands a Blob to the browser as a file download. */
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
