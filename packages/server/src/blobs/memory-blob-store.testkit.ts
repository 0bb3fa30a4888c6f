import { Readable, Writable } from 'node:stream';
import { assertBlobName, type BlobRange, type BlobStat, type BlobStore } from './blob-store.js';

/**
 * Blobs in memory, for tests that show code works over any blob store and not only over files.
 * It passes the same conformance suite as the local directory.
 */
export class MemoryBlobStore implements BlobStore {
  /** The pieces of each blob as appended; joined when read. */
  private readonly blobs = new Map<string, Buffer[]>();

  async init(): Promise<void> {}

  async put(name: string, data: Buffer | string): Promise<void> {
    assertBlobName(name);
    this.blobs.set(name, [Buffer.from(data)]);
  }

  append(name: string): Writable {
    assertBlobName(name);
    const blobs = this.blobs;
    return new Writable({
      construct(callback) {
        if (blobs.has(name)) return callback(new Error(`blob ${name} exists`));
        blobs.set(name, []);
        callback();
      },
      write(chunk: Buffer, _encoding, callback) {
        blobs.get(name)?.push(Buffer.from(chunk));
        callback();
      },
    });
  }

  async get(name: string, range: BlobRange = {}): Promise<Buffer | undefined> {
    assertBlobName(name);
    const pieces = this.blobs.get(name);
    if (!pieces) return undefined;
    const whole = Buffer.concat(pieces);
    return Buffer.from(whole.subarray(range.start ?? 0, range.end ?? whole.length));
  }

  async read(name: string, range?: BlobRange): Promise<Readable | undefined> {
    const data = await this.get(name, range);
    if (!data) return undefined;
    const pieces: Buffer[] = [];
    for (let at = 0; at < data.length; at += 64 * 1024) pieces.push(data.subarray(at, at + 65536));
    return Readable.from(pieces, { objectMode: false });
  }

  async stat(name: string): Promise<BlobStat | undefined> {
    const data = await this.get(name);
    return data && { size: data.length };
  }

  async list(prefix = ''): Promise<string[]> {
    return [...this.blobs.keys()].filter((name) => name.startsWith(prefix)).sort();
  }

  async delete(name: string): Promise<void> {
    assertBlobName(name);
    this.blobs.delete(name);
  }
}
