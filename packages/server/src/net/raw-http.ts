import { STATUS_CODES } from 'node:http';

/**
 * A response head in HTTP/1.1 wire form, for a socket taken over by an upgrade (a `101`, or a
 * refusal written before any protocol starts). A header Node would refuse to send (a bad name, a
 * value with CR, LF or NUL) is left out, so no value can end the head early or add a header.
 */
export function rawResponseHead(
  status: number,
  headers: Readonly<Record<string, string | readonly string[]>>,
): string {
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    for (const line of typeof value === 'string' ? [value] : value) {
      if (/^[!#$%&'*+.^_`|~\w-]+$/.test(name) && !/[\0\r\n]/.test(line)) {
        head += `${name}: ${line}\r\n`;
      }
    }
  }
  return `${head}\r\n`;
}
