import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from './blob-store.js';

export interface BlobStoreUnderTest {
  store: BlobStore;
  /** Removes the storage. */
  cleanup: () => Promise<void>;
}

export interface BlobStoreCapabilities {
  /**
   * What an unfinished append wrote can be read while it is still open. Sealing a recording
   * after a crash relies on it; a store without it loses a crashed recording's unsent part.
   */
  readsWhileAppending: boolean;
}

const readAll = async (source: Readable | undefined) => {
  if (!source) return undefined;
  const pieces: Buffer[] = [];
  for await (const piece of source) pieces.push(piece as Buffer);
  return Buffer.concat(pieces);
};

const finish = async (stream: Writable) => {
  stream.end();
  await once(stream, 'close');
};

/** The behaviour every blob store must share; each implementation's test file calls this. */
export function runBlobStoreConformance(
  name: string,
  factory: () => Promise<BlobStoreUnderTest>,
  capabilities: BlobStoreCapabilities,
): void {
  describe(`${name} blob store conformance`, () => {
    let subject: BlobStoreUnderTest;
    let store: BlobStore;

    beforeEach(async () => {
      subject = await factory();
      store = subject.store;
      await store.init();
      await store.init();
    });

    afterEach(() => subject.cleanup());

    it('puts a blob and gets it back whole, with its size; a missing one is undefined', async () => {
      expect(await store.get('a.cast.gz')).toBeUndefined();
      expect(await store.stat('a.cast.gz')).toBeUndefined();
      await store.put('a.cast.gz', Buffer.from([0, 1, 2, 255]));
      await store.put('a.index.json', '{"é":1}');
      expect(await store.get('a.cast.gz')).toEqual(Buffer.from([0, 1, 2, 255]));
      expect((await store.get('a.index.json'))?.toString('utf8')).toBe('{"é":1}');
      expect(await store.stat('a.index.json')).toEqual({ size: Buffer.byteLength('{"é":1}') });
      await store.put('empty', '');
      expect(await store.get('empty')).toEqual(Buffer.alloc(0));
    });

    it('a put replaces the whole blob and leaves nothing else behind', async () => {
      await store.put('x.json', 'a much longer first version');
      await store.put('x.json', 'short');
      expect((await store.get('x.json'))?.toString()).toBe('short');
      expect(await store.list()).toEqual(['x.json']);
    });

    it('gets a byte range: start included, end excluded, cut at the blob end', async () => {
      await store.put('r', '0123456789');
      const text = async (range: { start?: number; end?: number }) =>
        (await store.get('r', range))?.toString();
      expect(await text({ start: 2, end: 5 })).toBe('234');
      expect(await text({ start: 7 })).toBe('789');
      expect(await text({ end: 3 })).toBe('012');
      expect(await text({ start: 8, end: 100 })).toBe('89');
      expect(await text({ start: 10 })).toBe('');
      expect(await text({ start: 4, end: 4 })).toBe('');
      expect(await store.get('missing', { start: 1, end: 2 })).toBeUndefined();
    });

    it('streams a large blob whole or from a byte range', async () => {
      const data = randomBytes(3 * 1024 * 1024 + 17);
      await store.put('big', data);
      expect((await readAll(await store.read('big')))?.equals(data)).toBe(true);
      const from = 1_000_003;
      expect(
        (await readAll(await store.read('big', { start: from })))?.equals(data.subarray(from)),
      ).toBe(true);
      const part = await readAll(await store.read('big', { start: 10, end: 20 }));
      expect(part?.equals(data.subarray(10, 20))).toBe(true);
      expect(await readAll(await store.read('big', { start: 5, end: 5 }))).toEqual(Buffer.alloc(0));
      expect(await store.read('missing')).toBeUndefined();
    });

    it('a stream destroyed early releases the blob, which can still be replaced and read', async () => {
      await store.put('held', randomBytes(2 * 1024 * 1024));
      const source = (await store.read('held'))!;
      source.destroy();
      await store.put('held', 'new');
      expect((await store.get('held'))?.toString()).toBe('new');
    });

    it('appends pieces in order into a new blob', async () => {
      const writer = store.append('s.cast.gz');
      const pieces = Array.from({ length: 50 }, (_, i) => Buffer.from(`piece ${i};`));
      for (const piece of pieces) writer.write(piece);
      await finish(writer);
      expect(await store.get('s.cast.gz')).toEqual(Buffer.concat(pieces));
      expect(await store.list('s.')).toEqual(['s.cast.gz']);
    });

    it('refuses to append to a blob that exists, and leaves it as it was', async () => {
      await store.put('taken', 'first writer');
      const writer = store.append('taken');
      writer.write('second writer');
      const [error] = (await once(writer, 'error')) as [Error];
      expect(error).toBeInstanceOf(Error);
      expect((await store.get('taken'))?.toString()).toBe('first writer');
    });

    it(`what an open append wrote ${capabilities.readsWhileAppending ? 'can' : 'cannot'} be read before it ends`, async () => {
      const writer = store.append('open.cast.gz');
      await new Promise<void>((resolve, reject) =>
        writer.write('written so far', (error) => (error ? reject(error) : resolve())),
      );
      const before = await store.get('open.cast.gz');
      if (capabilities.readsWhileAppending) expect(before?.toString()).toBe('written so far');
      else expect(before).toBeUndefined();
      await finish(writer);
      expect((await store.get('open.cast.gz'))?.toString()).toBe('written so far');
    });

    it('lists names by prefix, sorted', async () => {
      expect(await store.list()).toEqual([]);
      for (const blob of ['b.index.json', 'a.cast.gz', 'b.cast.gz', 'a.index.json', 'ab.cast.gz'])
        await store.put(blob, 'x');
      expect(await store.list()).toEqual([
        'a.cast.gz',
        'a.index.json',
        'ab.cast.gz',
        'b.cast.gz',
        'b.index.json',
      ]);
      expect(await store.list('a.')).toEqual(['a.cast.gz', 'a.index.json']);
      expect(await store.list('zzz')).toEqual([]);
    });

    it('deletes a blob; deleting a missing one is no error', async () => {
      await store.put('gone', 'x');
      await store.delete('gone');
      await store.delete('gone');
      expect(await store.get('gone')).toBeUndefined();
      expect(await store.stat('gone')).toBeUndefined();
      expect(await store.list()).toEqual([]);
    });

    it('refuses names that are not flat, safe names', async () => {
      for (const bad of ['', '../x', 'a/b', '.hidden', 'a\\b', 'a b', 'x'.repeat(201)]) {
        await expect(store.put(bad, 'x'), bad).rejects.toThrow(/invalid blob name/);
        await expect(store.get(bad), bad).rejects.toThrow(/invalid blob name/);
        await expect(store.read(bad), bad).rejects.toThrow(/invalid blob name/);
        await expect(store.delete(bad), bad).rejects.toThrow(/invalid blob name/);
        expect(() => store.append(bad), bad).toThrow(/invalid blob name/);
      }
    });
  });
}
