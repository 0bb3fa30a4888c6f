import { constants, type Deflate } from 'node:zlib';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { ByteInput } from './byte-input.js';

/** Two ends of one loopback TCP connection: `client` dialled, `server` accepted. */
export async function socketPair(): Promise<{ client: Socket; server: Socket }> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
  const client = connect((listener.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((resolve) => client.once('connect', () => resolve()));
  const server = await accepted;
  listener.close();
  return { client, server };
}

/** Resolves once `check` holds, polling on the event loop (never a fixed sleep). */
export async function until(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A ByteInput over `bytes` cut into pieces of 1 to `maxPiece` bytes (seeded, so a failure
 * repeats), to show a parser does not care where chunks end.
 */
export function choppedInput(bytes: Buffer, seed = 1, maxPiece = 7): ByteInput {
  const stream = new PassThrough();
  const input = new ByteInput(stream, 'the peer');
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state;
  };
  for (let at = 0; at < bytes.length;) {
    const piece = 1 + (random() % maxPiece);
    stream.write(bytes.subarray(at, at + piece));
    at += piece;
  }
  stream.end();
  return input;
}

/**
 * Resolves once the async `check` holds, checking again every 100 ms; a check that throws
 * (a command that cannot succeed yet) counts as not yet.
 */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  limitMs = 10_000,
): Promise<void> {
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() - started > limitMs) {
      const detail = lastError instanceof Error ? ` (last: ${lastError.message})` : '';
      throw new Error(`timed out waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Writes `data` through a desktop's zlib stream and takes what one Z_SYNC_FLUSH lets out. */
export async function deflateFlushed(deflate: Deflate, data: Buffer): Promise<Buffer> {
  const pieces: Buffer[] = [];
  const collect = (piece: Buffer) => pieces.push(piece);
  deflate.on('data', collect);
  deflate.write(data);
  await new Promise<void>((resolve) => deflate.flush(constants.Z_SYNC_FLUSH, () => resolve()));
  deflate.off('data', collect);
  return Buffer.concat(pieces);
}
