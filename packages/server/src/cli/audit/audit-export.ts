import type { AuditEventJson } from '@postern/contracts';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { AuditPages } from './audit-client.js';

/**
 * Where an export stands: the time of the last event written, and the uids of the events
 * written at that very time (others of the same millisecond may still come, and must not be
 * written twice).
 */
export interface ExportCursor {
  time: string;
  uids: string[];
}

export interface ExportOptions {
  /** Where to start when there is no cursor yet. */
  from: Date;
  types?: string[] | undefined;
  /**
   * Events are exported only once they are this old: an event is stored a little after it
   * happens (the proxies batch their writes), so the newest seconds are left for the next round.
   */
  settleMs: number;
  now: () => number;
  /** Writes one batch of lines; resolved once they are out (so the cursor may move past them). */
  write: (lines: string) => Promise<void>;
  /** Keeps the cursor after each batch written. */
  save: (cursor: ExportCursor) => Promise<void>;
}

const pageSize = 1000;

/**
 * One round of an export: every event from the cursor (or `from`) up to `settleMs` ago, oldest
 * first, as JSON lines, the cursor saved after each page. Returns the cursor to go on from.
 * Delivery is at least once: a crash between a page's lines and its cursor writes those lines
 * again at the next start, each with its `uid` to tell.
 */
export async function exportRound(
  pages: AuditPages,
  cursor: ExportCursor | undefined,
  options: ExportOptions,
): Promise<ExportCursor | undefined> {
  const from = cursor ? new Date(cursor.time) : options.from;
  const to = new Date(options.now() - options.settleMs);
  if (to.getTime() <= from.getTime()) return cursor;
  let position = cursor;
  let startKey: string | undefined;
  do {
    const page = await pages({
      from,
      to,
      order: 'asc',
      limit: pageSize,
      types: options.types,
      startKey,
    });
    const fresh = page.events.filter((event) => !written(position, event));
    if (fresh.length > 0) {
      await options.write(fresh.map((event) => `${JSON.stringify(event)}\n`).join(''));
      position = fresh.reduce(advance, position);
      await options.save(position!);
    }
    startKey = page.startKey || undefined;
  } while (startKey);
  return position;
}

function written(cursor: ExportCursor | undefined, event: AuditEventJson): boolean {
  if (!cursor) return false;
  const at = Date.parse(event.time);
  const last = Date.parse(cursor.time);
  return at < last || (at === last && cursor.uids.includes(event.uid ?? ''));
}

function advance(cursor: ExportCursor | undefined, event: AuditEventJson): ExportCursor {
  const uid = event.uid ?? '';
  if (cursor && Date.parse(event.time) === Date.parse(cursor.time)) {
    return { time: cursor.time, uids: [...cursor.uids, uid] };
  }
  return { time: event.time, uids: [uid] };
}

/** The cursor file: absent means "start from --since"; anything else unreadable is an error. */
export async function readCursor(file: string): Promise<ExportCursor | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<ExportCursor>;
  if (
    typeof parsed.time !== 'string' ||
    Number.isNaN(Date.parse(parsed.time)) ||
    !Array.isArray(parsed.uids)
  ) {
    throw new Error(`${file} is not a cursor postern audit export wrote`);
  }
  return { time: parsed.time, uids: parsed.uids.filter((uid) => typeof uid === 'string') };
}

/** Written whole or not at all: a crash mid-write leaves the previous cursor. */
export async function saveCursor(file: string, cursor: ExportCursor): Promise<void> {
  const partial = `${file}.partial`;
  await writeFile(partial, `${JSON.stringify(cursor)}\n`, { mode: 0o600 });
  await rename(partial, file);
}
