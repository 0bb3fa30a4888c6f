import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, type Writable } from 'node:stream';
import {
  assertBlobName,
  isBlobName,
  type BlobRange,
  type BlobStat,
  type BlobStore,
} from './blob-store.js';

/**
 * Blobs as files in one directory, each under its own name (so a data dir written before blob
 * stores existed reads the same). Whole writes go through a temporary file and a rename; the
 * temporary names start with a dot, which no blob name does, so listings never show them.
 */
export class LocalDirBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  async put(name: string, data: Buffer | string): Promise<void> {
    const file = this.path(name);
    const temporary = path.join(this.dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeFile(temporary, data);
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  append(name: string): Writable {
    // 'wx': a second writer of the same blob fails instead of interleaving with the first.
    return createWriteStream(this.path(name), { flags: 'wx' });
  }

  async get(name: string, range: BlobRange = {}): Promise<Buffer | undefined> {
    const file = this.path(name);
    if (range.start === undefined && range.end === undefined)
      return readFile(file).catch(unlessMissing);
    const handle = await open(file).catch(unlessMissing);
    if (!handle) return undefined;
    try {
      const start = range.start ?? 0;
      const end = Math.min(range.end ?? Infinity, (await handle.stat()).size);
      const buffer = Buffer.alloc(Math.max(0, end - start));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async read(name: string, range: BlobRange = {}): Promise<Readable | undefined> {
    const handle = await open(this.path(name)).catch(unlessMissing);
    if (!handle) return undefined;
    const start = range.start ?? 0;
    const end = range.end ?? Infinity;
    // An empty range: fs would read one byte for end = start (its `end` is inclusive).
    if (end <= start) {
      await handle.close();
      return Readable.from([], { objectMode: false });
    }
    // The stream owns the handle: it closes it at the end, or when destroyed.
    return handle.createReadStream({ start, end: end === Infinity ? undefined : end - 1 });
  }

  async stat(name: string): Promise<BlobStat | undefined> {
    const found = await stat(this.path(name)).catch(unlessMissing);
    return found?.isFile() ? { size: found.size } : undefined;
  }

  async list(prefix = ''): Promise<string[]> {
    const names = await readdir(this.dir).catch(unlessMissing);
    return (names ?? []).filter((name) => name.startsWith(prefix) && isBlobName(name)).sort();
  }

  async delete(name: string): Promise<void> {
    await rm(this.path(name), { force: true });
  }

  /** Where a blob lives on disk, for tools and tests that hand a path to others. */
  path(name: string): string {
    assertBlobName(name);
    return path.join(this.dir, name);
  }
}

/** A file that is not there (or a directory that is a file) is a missing blob; other errors stand. */
function unlessMissing(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
  throw error;
}
