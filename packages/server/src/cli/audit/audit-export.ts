import { readFile, rename, writeFile } from 'node:fs/promises';
import type { AuditStoredPages } from './audit-client.js';

/**
 * Where an export stands: the log's position after the last event it read, as the proxy gave it
 * (opaque and signed). The log is read in the order it was stored, so an event written after it
 * happened (a proxy's batch, or a spool drained after an outage) still comes after the position.
 */
export interface ExportCursor {
  startKey: string;
}

/** What a cursor file holds: a position, or, from the release that read by time, a time. */
export type SavedCursor = ExportCursor | { from: Date };

export interface ExportOptions {
  /** Where to start without a position: the first event that happened at or after it. */
  from: Date;
  types?: string[] | undefined;
  /** Writes one batch of lines; resolved once they are out (so the cursor may move past them). */
  write: (lines: string) => Promise<void>;
  /** Keeps the cursor after each batch written. */
  save: (cursor: ExportCursor) => Promise<void>;
}

const pageSize = 1000;

/**
 * One round of an export: every event stored since the cursor (or since the first event at or
 * after `from`), in the order stored, as JSON lines, the cursor saved after each page. Returns
 * the cursor to go on from. Delivery is at least once: a crash between a page's lines and its
 * cursor writes those lines again at the next start, each with its `uid` to tell.
 */
export async function exportRound(
  pages: AuditStoredPages,
  cursor: ExportCursor | undefined,
  options: ExportOptions,
): Promise<ExportCursor | undefined> {
  let position = cursor;
  for (;;) {
    const page = await pages({
      ...(position ? { startKey: position.startKey } : { from: options.from }),
      limit: pageSize,
      types: options.types,
    });
    if (page.events.length > 0) {
      await options.write(page.events.map((event) => `${JSON.stringify(event)}\n`).join(''));
    }
    // A page of events the caller may not read moves the position too, with nothing written.
    if (page.startKey && page.startKey !== position?.startKey) {
      position = { startKey: page.startKey };
      await options.save(position);
    }
    // A short page is the end of the log for now (the proxy fills a page while events remain).
    if (page.events.length < pageSize) return position;
  }
}

/** The cursor file: absent means "start from --since"; anything else unreadable is an error. */
export async function readCursor(file: string): Promise<SavedCursor | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = parseObject(text);
  if (typeof parsed?.startKey === 'string' && parsed.startKey !== '') {
    return { startKey: parsed.startKey };
  }
  // The earlier export kept the time of the last event written: go on from that time (the
  // events of that very moment come again, as at least once allows).
  if (typeof parsed?.time === 'string' && !Number.isNaN(Date.parse(parsed.time))) {
    return { from: new Date(parsed.time) };
  }
  throw new Error(`${file} is not a cursor postern audit export wrote`);
}

/** The file's JSON object, or undefined (reported as not a cursor, whatever else it holds). */
function parseObject(text: string): { startKey?: unknown; time?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole or not at all: a crash mid-write leaves the previous cursor. */
export async function saveCursor(file: string, cursor: ExportCursor): Promise<void> {
  const partial = `${file}.partial`;
  await writeFile(partial, `${JSON.stringify(cursor)}\n`, { mode: 0o600 });
  await rename(partial, file);
}
