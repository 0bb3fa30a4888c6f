import { Transform } from 'node:stream';
import { fileTooLargeMessage } from '@postern/contracts';
import { ApiError } from '../../../errors.js';

export const tooLarge = (maxBytes: number) =>
  new ApiError('too_large', fileTooLargeMessage(maxBytes));

/** Passes bytes through, counting them; more than `limit` fails the stream. */
export function byteCounter(limit: number) {
  const counter = Object.assign(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        counter.bytes += chunk.length;
        if (counter.bytes > limit) return done(tooLarge(limit));
        done(null, chunk);
      },
    }),
    { bytes: 0 },
  );
  return counter;
}

/** Resolves once an SFTP write stream has closed its handle (after its last write was acked). */
export function closed(stream: NodeJS.WritableStream & { closed?: boolean }): Promise<void> {
  if (stream.closed) return Promise.resolve();
  return new Promise((resolve) => stream.once('close', () => resolve()));
}

/** A stream failure in words; a premature close (the other side went away) gets `fallback`. */
export function describe(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return error.message;
  if ((error as { code?: unknown } | null)?.code === 'ERR_STREAM_PREMATURE_CLOSE') return fallback;
  return error instanceof Error ? error.message : fallback;
}
