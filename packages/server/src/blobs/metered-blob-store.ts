import type { Writable } from 'node:stream';
import type { BlobStore } from './blob-store.js';

function byteLength(chunk: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk);
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

/**
 * The same store, telling `onWritten` how many bytes each write hands it (whole blobs and the
 * pieces of appended ones): what the recording bytes metric counts.
 */
export function meteredBlobStore(blobs: BlobStore, onWritten: (bytes: number) => void): BlobStore {
  return {
    init: () => blobs.init(),
    put: (name, data) => {
      onWritten(byteLength(data));
      return blobs.put(name, data);
    },
    append: (name) => meteredWritable(blobs.append(name), onWritten),
    get: (name, range) => blobs.get(name, range),
    read: (name, range) => blobs.read(name, range),
    stat: (name) => blobs.stat(name),
    list: (prefix) => blobs.list(prefix),
    delete: (name) => blobs.delete(name),
  };
}

/** The stream itself (its events and state untouched), its `write` and `end` counted. */
function meteredWritable(stream: Writable, onWritten: (bytes: number) => void): Writable {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  const end = stream.end.bind(stream) as (...args: unknown[]) => Writable;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    onWritten(byteLength(chunk));
    return write(chunk, ...rest);
  }) as Writable['write'];
  stream.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') onWritten(byteLength(chunk));
    return end(chunk, ...rest);
  }) as Writable['end'];
  return stream;
}
