import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSchemas, testPostgresUrl } from '../../backend/testing/postgres.testkit.js';
import { runBlobStoreConformance } from '../blob-store.conformance.testkit.js';
import { LocalDirBlobStore } from '../local-dir-blob-store.js';
import type { BlobSpool } from './blob-spool.js';
import { PostgresBlobSpool } from './blob-spool.postgres.js';
import { SqliteBlobSpool } from './blob-spool.sqlite.js';
import { SpooledBlobStore } from './spooled-blob-store.js';

// Each test gets a PostgreSQL schema of its own, dropped after the file.
const schemas = new TestSchemas();
beforeAll(() => schemas.connect());
afterAll(() => schemas.dropAll());

type SpoolKind = 'sqlite' | 'postgres';

/** A spooled store over a local directory (the object store here is not what is tested). */
async function spooledStore(kind: SpoolKind, owner = 'proxy-a', dir?: string) {
  const root = dir ?? (await mkdtemp(path.join(os.tmpdir(), 'postern-spool-')));
  const spool = openSpool(kind, root);
  const store = new SpooledBlobStore(new LocalDirBlobStore(path.join(root, 'objects')), spool, {
    owner,
    flushIntervalMs: 50,
  });
  return { store, spool, root };
}

const pgSchemaOf = new Map<string, string>();
function openSpool(kind: SpoolKind, root: string): BlobSpool {
  if (kind === 'sqlite') return new SqliteBlobSpool(path.join(root, 'spool.db'));
  let schema = pgSchemaOf.get(root);
  if (!schema) pgSchemaOf.set(root, (schema = schemas.newName()));
  return new PostgresBlobSpool({ url: testPostgresUrl, schema });
}

const finish = async (writer: NodeJS.WritableStream) => {
  writer.end();
  await once(writer, 'close');
};

for (const kind of ['sqlite', 'postgres'] as const) {
  runBlobStoreConformance(
    `spooled (${kind} spool)`,
    async () => {
      const { store, root } = await spooledStore(kind);
      return {
        store,
        cleanup: async () => {
          await store.close();
          await rm(root, { recursive: true, force: true });
        },
      };
    },
    { readsWhileAppending: true },
  );

  describe(`spooled blob store (${kind} spool)`, () => {
    it('an append reaches the spool within the flush interval, before it ends, and is uploaded at its end', async () => {
      const { store, spool, root } = await spooledStore(kind);
      await store.init();
      try {
        const writer = store.append('s1.cast.gz');
        writer.write('first second;');
        await new Promise((resolve) => setTimeout(resolve, 300));
        // Another process would see exactly this: the spool's entry, not yet ended.
        expect(await spool.entry('s1.cast.gz')).toMatchObject({
          owner: 'proxy-a',
          ended: false,
          size: 13,
        });
        expect(await store.target.stat('s1.cast.gz')).toBeUndefined();
        writer.write('second second');
        await finish(writer);
        await expect.poll(() => store.target.stat('s1.cast.gz')).toEqual({ size: 26 });
        await expect.poll(() => spool.entry('s1.cast.gz')).toBeUndefined();
        expect((await store.get('s1.cast.gz'))?.toString()).toBe('first second;second second');
      } finally {
        await store.close();
        await rm(root, { recursive: true, force: true });
      }
    });

    it('lists a blob whose upload ends between its reads of the spool and of the store', async () => {
      const { store, spool, root } = await spooledStore(kind);
      await store.init();
      try {
        // The upload waits until the first of the two reads is over, then runs to its end.
        const target = store.target as LocalDirBlobStore;
        const put = target.put.bind(target);
        let allowUpload!: () => void;
        const uploadAllowed = new Promise<void>((resolve) => (allowUpload = resolve));
        target.put = async (name, data) => {
          await uploadAllowed;
          return put(name, data);
        };
        const writer = store.append('race.cast.gz');
        writer.write('whole');
        await finish(writer);
        let firstListed!: () => void;
        const firstOver = new Promise<void>((resolve) => (firstListed = resolve));
        let reads = 0;
        const uploaded = firstOver.then(async () => {
          allowUpload();
          while (await spool.entry('race.cast.gz')) await new Promise((r) => setTimeout(r, 10));
        });
        const hook =
          <T>(read: (prefix?: string) => Promise<T>) =>
          async (prefix?: string): Promise<T> => {
            if (reads++ > 0) {
              await uploaded;
              return read(prefix);
            }
            const answer = await read(prefix);
            firstListed();
            return answer;
          };
        target.list = hook(target.list.bind(target));
        spool.list = hook(spool.list.bind(spool));
        expect(await store.list('race.')).toEqual(['race.cast.gz']);
        expect(await target.stat('race.cast.gz')).toEqual({ size: 5 });
      } finally {
        await store.close();
        await rm(root, { recursive: true, force: true });
      }
    });

    it('another proxy adopts a dead proxy’s open append with what was flushed, and uploads it', async () => {
      const a = await spooledStore(kind, 'proxy-a');
      const b = await spooledStore(kind, 'proxy-b', a.root);
      await a.store.init();
      await b.store.init();
      try {
        const writer = a.store.append('dead.cast.gz');
        writer.write('flushed before the kill');
        await (
          a.store as unknown as { appending: Map<string, { flush(): Promise<void> }> }
        ).appending
          .get('dead.cast.gz')!
          .flush();
        // proxy-a still lives: nothing is taken from it.
        expect(await b.store.adopt((owner) => owner === 'proxy-a')).toEqual([]);
        // proxy-a is gone: proxy-b takes the entry, ends it and uploads it.
        expect(await b.store.adopt(() => false)).toEqual(['dead.cast.gz']);
        await b.store.uploadPending();
        expect((await b.store.target.get('dead.cast.gz'))?.toString()).toBe(
          'flushed before the kill',
        );
        expect(await b.spool.entry('dead.cast.gz')).toBeUndefined();
        // The writer of the proxy taken for dead can no longer write into it.
        writer.write('late');
        const [error] = (await once(writer, 'error')) as [Error];
        expect(error.message).toMatch(/taken over by another proxy/);
      } finally {
        await a.store.close();
        await b.store.close();
        await rm(a.root, { recursive: true, force: true });
      }
    });

    it('a busy append writes about one piece per flush interval, not one per round trip', async () => {
      const { store, spool, root } = await spooledStore(kind); // flushes every 50 ms
      await store.init();
      try {
        const writer = store.append('busy.cast.gz');
        const until = Date.now() + 500;
        let written = 0;
        while (Date.now() < until) {
          writer.write(Buffer.alloc(100, 1));
          written += 100;
          // About 100 KB/s, well below a MiB per interval: only the interval starts flushes.
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
        let pieces = 0;
        let bytes = 0;
        for await (const piece of spool.pieces('busy.cast.gz')) {
          pieces += 1;
          bytes += piece.length;
        }
        expect(bytes).toBe(written);
        // ~700 ms of writing and waiting at 50 ms a piece: a few more for timing slack.
        expect(pieces).toBeLessThanOrEqual(20);
        expect(pieces).toBeGreaterThanOrEqual(5);
        await finish(writer);
      } finally {
        await store.close();
        await rm(root, { recursive: true, force: true });
      }
    });

    it('of two proxies adopting a dead one together, one takes all its entries', async () => {
      const dead = await spooledStore(kind, 'proxy-dead');
      const b = await spooledStore(kind, 'proxy-b', dead.root);
      const c = await spooledStore(kind, 'proxy-c', dead.root);
      for (const store of [dead, b, c]) await store.store.init();
      try {
        for (const part of ['s.cast.gz', 's.keyframes.jsonl', 's.chunks.jsonl']) {
          const writer = dead.store.append(part);
          writer.write(part);
          await (
            dead.store as unknown as { appending: Map<string, { flush(): Promise<void> }> }
          ).appending
            .get(part)!
            .flush();
        }
        const gone = (owner: string) => owner !== 'proxy-dead';
        const [byB, byC] = await Promise.all([b.store.adopt(gone), c.store.adopt(gone)]);
        const taken = [byB, byC].filter((names) => names.length > 0);
        expect(taken).toEqual([['s.cast.gz', 's.chunks.jsonl', 's.keyframes.jsonl']]);
      } finally {
        for (const store of [dead, b, c]) await store.store.close();
        await rm(dead.root, { recursive: true, force: true });
      }
    });

    it('a piece retried after its answer was lost is not written twice', async () => {
      const root = await mkdtemp(path.join(os.tmpdir(), 'postern-spool-'));
      const spool = openSpool(kind, root);
      await spool.init();
      try {
        expect(await spool.begin('r.cast.gz', 'proxy-a')).toBe(true);
        expect(await spool.append('r.cast.gz', 'proxy-a', Buffer.from('abc'), 0)).toBe(true);
        // The same piece again (the first answer lost): found in place, not appended.
        expect(await spool.append('r.cast.gz', 'proxy-a', Buffer.from('abc'), 0)).toBe(true);
        expect(await spool.append('r.cast.gz', 'proxy-a', Buffer.from('de'), 3)).toBe(true);
        expect(await spool.entry('r.cast.gz')).toMatchObject({ size: 5 });
        // Another owner, or a piece that is not where the writer thinks: refused.
        expect(await spool.append('r.cast.gz', 'proxy-b', Buffer.from('x'), 5)).toBe(false);
        expect(await spool.append('r.cast.gz', 'proxy-a', Buffer.from('x'), 1)).toBe(false);
        const pieces: Buffer[] = [];
        for await (const piece of spool.pieces('r.cast.gz')) pieces.push(piece);
        expect(Buffer.concat(pieces).toString()).toBe('abcde');
      } finally {
        await spool.close();
        await rm(root, { recursive: true, force: true });
      }
    });

    it('an append rides out a spool that fails for a while, writing each byte once', async () => {
      const { store, spool, root } = await spooledStore(kind);
      await store.init();
      // A fault-injecting wrapper around the real spool: the next three appends fail after
      // landing (the answer lost), then work again.
      let failures = 3;
      const append = spool.append.bind(spool);
      spool.append = async (...args) => {
        const landed = await append(...args);
        if (failures-- > 0) throw new Error('connection terminated unexpectedly');
        return landed;
      };
      try {
        const writer = store.append('flaky.cast.gz');
        for (let i = 0; i < 5; i++) {
          writer.write(`piece ${i};`);
          await new Promise((resolve) => setTimeout(resolve, 80));
        }
        await finish(writer);
        expect((await store.get('flaky.cast.gz'))?.toString()).toBe(
          'piece 0;piece 1;piece 2;piece 3;piece 4;',
        );
      } finally {
        await store.close();
        await rm(root, { recursive: true, force: true });
      }
    });

    it('a put the object store refuses waits in the spool, reads the same, and is uploaded later', async () => {
      const { store, spool, root } = await spooledStore(kind);
      await store.init();
      try {
        const target = store.target as LocalDirBlobStore;
        // The objects directory becomes a file: every write to it fails, as a store that is away.
        await rm(target.dir, { recursive: true, force: true });
        await writeFile(target.dir, 'not a directory');
        await store.put('x.index.json', '{"sealed":true}');
        expect(await spool.entry('x.index.json')).toMatchObject({ ended: true, size: 15 });
        expect((await store.get('x.index.json', { start: 1, end: 9 }))?.toString()).toBe(
          '"sealed"',
        );
        expect(await store.list('x.')).toEqual(['x.index.json']);
        // The store is back: the retry uploads it.
        await rm(target.dir, { force: true });
        await target.init();
        await store.uploadPending();
        expect((await target.get('x.index.json'))?.toString()).toBe('{"sealed":true}');
        expect(await spool.entry('x.index.json')).toBeUndefined();
      } finally {
        await store.close();
        await rm(root, { recursive: true, force: true });
      }
    });
  });
}
