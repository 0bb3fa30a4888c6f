import type { RawData } from 'ws';

/** A received message as bytes, whichever of ws's shapes it came in. */
export function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/** A close reason must fit in 123 bytes: cut on a character boundary. */
export function truncateReason(reason: string): string {
  const bytes = Buffer.from(reason, 'utf8');
  return bytes.length <= 120
    ? reason
    : bytes
        .subarray(0, 120)
        .toString('utf8')
        .replace(/\uFFFD$/, '');
}
