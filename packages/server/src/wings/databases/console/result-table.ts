/** One result of a statement, with its values as the server's text. */
export interface StatementResult {
  /** Columns in order; numeric ones are right-aligned, as psql and mariadb print them. */
  fields: { name: string; numeric: boolean }[];
  rows: (string | null)[][];
  /** Rows the server sent beyond those kept for display. */
  omitted: number;
  /** What a statement without rows printed: `CREATE TABLE`, `INSERT 0 2`, `Query OK, ...`. */
  tag: string;
}

/** A result as psql prints it in aligned mode, lines joined by CRLF for the terminal. */
export function formatResult(result: StatementResult): string {
  if (result.fields.length === 0) return `${result.tag}\r\n`;
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
      return field.numeric ? text.padStart(widths[column]!) : text.padEnd(widths[column]!);
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
