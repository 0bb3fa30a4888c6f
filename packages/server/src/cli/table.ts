export type Print = (line: string) => void;

/** Columns padded to their widest cell, two spaces apart, no trailing blanks. */
export function printTable(header: string[], rows: string[][], print: Print): void {
  const table = [header, ...rows];
  const widths = header.map((_, column) =>
    Math.max(...table.map((row) => (row[column] ?? '').length)),
  );
  for (const row of table) {
    print(
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  }
}

/** Labels as one cell: `name=value` pairs sorted by name, comma-separated. */
export function labelsCell(labels: Record<string, string>): string {
  return Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}=${value}`)
    .join(',');
}

/** Labels as the API lists them (`{name, value}`, already sorted): one cell, as `labelsCell`. */
export function labelListCell(labels: readonly { name: string; value: string }[]): string {
  return labels.map(({ name, value }) => `${name}=${value}`).join(',');
}
