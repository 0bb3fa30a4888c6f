/** One result of a statement, with its values as the server's text. */
export interface StatementResult {
  command: string | null;
  rowCount: number | null;
  fields: { name: string; dataTypeID: number }[];
  rows: (string | null)[][];
  /** Rows the server sent beyond those kept for display. */
  omitted: number;
  /** The server's command tag as sent (`CREATE TABLE`, `INSERT 0 2`), when known. */
  tag?: string;
}

/** int2, int4, int8, oid, float4, float8, numeric, money: right-aligned, as psql does. */
const numericTypes = new Set([20, 21, 23, 26, 700, 701, 790, 1700]);

/** A result as psql prints it in aligned mode, lines joined by CRLF for the terminal. */
export function formatResult(result: StatementResult): string {
  if (result.fields.length === 0) return `${commandTag(result)}\r\n`;
  const cell = (value: string | null) => (value === null ? '' : value.replace(/\r?\n/g, '↵'));
  const widths = result.fields.map((field, column) =>
    Math.max(
      [...field.name].length,
      ...result.rows.map((row) => [...cell(row[column] ?? null)].length),
    ),
  );
  const header = result.fields
    .map((field, column) => center(field.name, widths[column]!))
    .join(' | ');
  const rule = widths.map((width) => '-'.repeat(width + 2)).join('+');
  const lines = [` ${header} `.trimEnd(), rule];
  for (const row of result.rows) {
    const cells = result.fields.map((field, column) => {
      const text = cell(row[column] ?? null);
      return numericTypes.has(field.dataTypeID)
        ? text.padStart(widths[column]!)
        : text.padEnd(widths[column]!);
    });
    lines.push(` ${cells.join(' | ')}`.trimEnd());
  }
  const total = result.rows.length + result.omitted;
  const shown = result.omitted > 0 ? `, ${result.rows.length} shown` : '';
  lines.push(`(${total} ${total === 1 ? 'row' : 'rows'}${shown})`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function center(text: string, width: number): string {
  const room = width - [...text].length;
  const left = Math.floor(room / 2);
  return ' '.repeat(left) + text + ' '.repeat(room - left);
}

/** psql's command tag: `INSERT 0 3`, `UPDATE 2`, `CREATE TABLE`. */
function commandTag(result: StatementResult): string {
  if (result.tag) return result.tag;
  const command = result.command ?? 'OK';
  if (command === 'INSERT') return `INSERT 0 ${result.rowCount ?? 0}`;
  if (['UPDATE', 'DELETE', 'SELECT', 'MOVE', 'FETCH', 'COPY', 'MERGE'].includes(command)) {
    return `${command} ${result.rowCount ?? 0}`;
  }
  return command;
}
