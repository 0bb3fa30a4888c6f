import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import type { KubeItem } from './kube-verdict.js';

/**
 * Listings and watches the roles reach in part (kube-verdict.ts): the proxy reads the API
 * server's JSON and passes on only the objects each one may see. Tables (what `kubectl get`
 * asks for) are filtered by their rows' object metadata, lists by their items, watches event by
 * event. Such requests ask the API server for plain JSON, never protobuf or gzip.
 */

type Filter = (item: KubeItem) => boolean;

/** A listing larger than this is refused rather than held whole in the proxy's memory. */
const maxListBytes = 32 * 1024 * 1024;

/** The request's headers, made to ask for an answer the proxy can read. */
export function readableAnswerHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const accept = String(headers.accept ?? 'application/json')
    .split(',')
    .filter((type) => !type.includes('protobuf'))
    .join(',');
  const { 'accept-encoding': _encoding, ...rest } = headers;
  return { ...rest, accept: accept || 'application/json' };
}

/** Relays a filtered listing: read whole (up to a limit), filtered, sent with its new length. */
export function relayFilteredList(
  answer: IncomingMessage,
  res: ServerResponse,
  filter: Filter,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  answer.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxListBytes) {
      answer.destroy();
      return void res.destroy();
    }
    chunks.push(chunk);
  });
  answer.on('end', () => {
    const body = Buffer.concat(chunks);
    const filtered =
      isJson(answer) && answer.statusCode === 200 ? filterObject(body, filter) : body;
    const { 'content-length': _length, 'transfer-encoding': _te, ...headers } = answer.headers;
    res.writeHead(answer.statusCode ?? 502, { ...headers, 'content-length': filtered.length });
    res.end(filtered);
  });
  answer.on('error', () => res.destroy());
}

/** A watch's events, one JSON object a line, with those the user may not see dropped. */
export class WatchFilter extends Transform {
  #pending = '';
  readonly #keep: Filter;

  constructor(keep: Filter) {
    super();
    this.#keep = keep;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const lines = (this.#pending + chunk.toString('utf8')).split('\n');
    this.#pending = lines.pop() ?? '';
    if (this.#pending.length > maxListBytes) return done(new Error('a watch event is too large'));
    for (const line of lines) {
      if (line.trim() === '') continue;
      const kept = filterEventLine(line, this.#keep);
      if (kept !== undefined) this.push(`${kept}\n`);
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    const kept = this.#pending.trim() ? filterEventLine(this.#pending, this.#keep) : undefined;
    if (kept !== undefined) this.push(kept);
    done();
  }
}

function isJson(answer: IncomingMessage): boolean {
  return String(answer.headers['content-type'] ?? '').startsWith('application/json');
}

interface Metadata {
  namespace?: string;
  name?: string;
}

const itemOf = (metadata: Metadata | undefined): KubeItem => ({
  namespace: metadata?.namespace ?? '',
  name: metadata?.name ?? '',
});

/** A List's items or a Table's rows, filtered; anything else as it was. */
function filterObject(body: Buffer, filter: Filter): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  return Buffer.from(JSON.stringify(filterParsed(parsed, filter)));
}

function filterParsed(parsed: unknown, filter: Filter): unknown {
  if (!parsed || typeof parsed !== 'object') return parsed;
  const object = parsed as {
    kind?: string;
    items?: { metadata?: Metadata }[];
    rows?: { object?: { metadata?: Metadata } }[];
  };
  if (object.kind === 'Table' && Array.isArray(object.rows)) {
    return { ...object, rows: object.rows.filter((row) => filter(itemOf(row.object?.metadata))) };
  }
  if (Array.isArray(object.items)) {
    return { ...object, items: object.items.filter((item) => filter(itemOf(item.metadata))) };
  }
  return object;
}

/** One watch event: kept (a Table's rows filtered), or undefined when the user may not see it. */
function filterEventLine(line: string, filter: Filter): string | undefined {
  let event: { type?: string; object?: { kind?: string; metadata?: Metadata } };
  try {
    event = JSON.parse(line) as typeof event;
  } catch {
    return undefined;
  }
  const object = event.object;
  // Bookmarks and errors name no object the user could not see.
  if (!object || event.type === 'BOOKMARK' || event.type === 'ERROR') return line;
  if (object.kind === 'Table') {
    const table = filterParsed(object, filter) as { rows?: unknown[] };
    return table.rows && table.rows.length > 0
      ? JSON.stringify({ ...event, object: table })
      : undefined;
  }
  return filter(itemOf(object.metadata)) ? line : undefined;
}
