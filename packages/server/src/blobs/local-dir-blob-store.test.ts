import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBlobStoreConformance } from './blob-store.conformance.testkit.js';
import { LocalDirBlobStore } from './local-dir-blob-store.js';

runBlobStoreConformance(
  'local directory',
  async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'postern-blobs-'));
    return {
      store: new LocalDirBlobStore(path.join(dir, 'recordings')),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
  { readsWhileAppending: true },
);

describe('local directory blob store', () => {
  it('a blob is the file of the same name, so data dirs from before blob stores still read', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'postern-blobs-'));
    try {
      const store = new LocalDirBlobStore(dir);
      await writeFile(path.join(dir, 'old.cast.gz'), 'written by an older version');
      expect((await store.get('old.cast.gz'))?.toString()).toBe('written by an older version');
      await store.put('new.index.json', '{}');
      expect(await readFile(path.join(dir, 'new.index.json'), 'utf8')).toBe('{}');
      // Files that are not blobs (a temporary name, a leftover) are not listed.
      await writeFile(path.join(dir, '.new.index.json.1234.tmp'), '');
      expect(await store.list()).toEqual(['new.index.json', 'old.cast.gz']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('storage that cannot exist reads as empty, and appending to it fails on the stream', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'postern-blobs-'));
    try {
      await writeFile(path.join(dir, 'file'), '');
      const store = new LocalDirBlobStore(path.join(dir, 'file', 'recordings'));
      expect(await store.list()).toEqual([]);
      expect(await store.get('a.cast.gz')).toBeUndefined();
      const writer = store.append('a.cast.gz');
      const error = await new Promise<NodeJS.ErrnoException>((resolve) =>
        writer.on('error', resolve),
      );
      expect(error.code).toBe('ENOTDIR');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
