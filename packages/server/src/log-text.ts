import type { DestinationStream } from 'pino';

/** pino's numeric levels, as people read them. */
const levelNames: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields every line carries; on a terminal they only add noise. */
const hiddenFields = new Set(['time', 'level', 'msg', 'service', 'pid', 'hostname']);

const isUrl = (value: unknown): value is string =>
  typeof value === 'string' && /^https?:\/\/\S+$/.test(value);

/** Continuation lines line up under the message: "HH:MM:SS LEVEL  ". */
const indent = ' '.repeat(16);

/**
 * One pino JSON line as a person reads it: `HH:MM:SS LEVEL  message  key=value …`. Fields that
 * hold a link go on lines of their own, so a terminal can select or open them whole; when the
 * message ends with such a link it is not repeated there. The line is what pino wrote, after its
 * redaction, so a redacted credential stays redacted here too.
 */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = levelNames[Number(entry.level)] ?? String(entry.level);
  let message = typeof entry.msg === 'string' ? entry.msg : '';
  const links: string[] = [];
  const fields: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (hiddenFields.has(key) || value === undefined) continue;
    if (isUrl(value)) {
      links.push(value);
      if (message.endsWith(` ${value}`)) message = message.slice(0, -value.length - 1);
    } else {
      fields.push(...fieldText(key, value));
    }
  }
  const head = `${clockTime(entry.time)} ${level.padEnd(5)}  ${message}`;
  // With links under the message, the fields follow them rather than trail the message.
  const first = links.length === 0 ? [head, ...fields].join('  ') : head;
  const fieldLine = links.length > 0 && fields.length > 0 ? [fields.join('  ')] : [];
  const more = [...links, ...fieldLine, ...errorStack(entry.err)];
  return `${[first, ...more.map((text) => indent + text)].join('\n')}\n`;
}

/** A pino destination that writes readable lines to `out` (stdout on a terminal). */
export function textDestination(out: { write(text: string): unknown }): DestinationStream {
  return { write: (line: string) => void out.write(formatLogLine(line)) };
}

function fieldText(key: string, value: unknown): string[] {
  if (key === 'req' && value && typeof value === 'object') {
    const req = value as { method?: string; url?: string; remoteAddress?: string };
    return [`${req.method ?? ''} ${req.url ?? ''}`.trim(), `from=${req.remoteAddress ?? ''}`];
  }
  if (key === 'res' && value && typeof value === 'object') {
    return [`status=${String((value as { statusCode?: unknown }).statusCode)}`];
  }
  if (key === 'err' && value && typeof value === 'object') {
    return [`err=${quoted(String((value as { message?: unknown }).message ?? ''))}`];
  }
  if (key === 'responseTime' && typeof value === 'number') return [`took=${value.toFixed(1)}ms`];
  return [`${key}=${typeof value === 'string' ? quoted(value) : JSON.stringify(value)}`];
}

/** Strings are bare unless a space or quote would make the line ambiguous. */
const quoted = (text: string) => (/[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text);

/** An error's stack under its line, minus the first line (the message, shown as err=). */
function errorStack(err: unknown): string[] {
  const stack = err && typeof err === 'object' ? (err as { stack?: unknown }).stack : undefined;
  return typeof stack === 'string'
    ? stack
        .split('\n')
        .slice(1)
        .map((line) => line.trim())
    : [];
}

/** Local wall-clock time of the entry; the JSON format keeps the full ISO time. */
function clockTime(time: unknown): string {
  const date = new Date(typeof time === 'string' || typeof time === 'number' ? time : Date.now());
  const at = Number.isNaN(date.getTime()) ? new Date() : date;
  return [at.getHours(), at.getMinutes(), at.getSeconds()]
    .map((part) => String(part).padStart(2, '0'))
    .join(':');
}
