import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeEvents, EventReader, eventRevision } from './testing/event-reader.testkit.js';
import type { Backend, Item, WatchEvent } from './types.js';
import { AlreadyExistsError, BackendError, CompareFailedError, NotFoundError } from './types.js';

export interface BackendUnderTest {
  backend: Backend;
  /** Opens another instance on the same storage: another server, or a CLI process. */
  openPeer?: () => Promise<Backend>;
  /** Closes `backend` and removes its storage. */
  cleanup: () => Promise<void>;
}

/** Called once per test, so every test starts from empty storage. */
export type BackendFactory = (options: { sweepIntervalMs: number }) => Promise<BackendUnderTest>;

/** Fast sweeps keep the TTL tests short. */
const SWEEP_MS = 100;

export interface BackendCapabilities {
  /** Instances can share storage (factory provides `openPeer`). */
  sharedStorage: boolean;
}

/** The behaviour every backend must share; each implementation's test file calls this. */
export function runBackendConformance(
  name: string,
  factory: BackendFactory,
  capabilities: BackendCapabilities,
): void {
  describe(`${name} backend conformance`, () => {
    let subject: BackendUnderTest;
    let backend: Backend;
    const peers: Backend[] = [];

    const openPeer = async (): Promise<Backend> => {
      if (!subject.openPeer) throw new Error('no peer');
      const peer = await subject.openPeer();
      peers.push(peer);
      return peer;
    };

    beforeEach(async () => {
      subject = await factory({ sweepIntervalMs: SWEEP_MS });
      backend = subject.backend;
    });

    afterEach(async () => {
      await Promise.all(peers.splice(0).map((peer) => peer.close()));
      await subject.cleanup();
    });

    const json = (value: unknown) => JSON.stringify(value);

    describe('get, create, update, upsert, delete', () => {
      it('creates an item and reads it back; a second create fails with already_exists', async () => {
        expect(await backend.get('/users/alice')).toBeNull();
        const created = await backend.create({
          key: '/users/alice',
          value: json({ name: 'alice' }),
        });
        expect(created).toEqual({
          key: '/users/alice',
          value: '{"name":"alice"}',
          revision: expect.stringMatching(/^[1-9][0-9]*$/),
        });
        expect(await backend.get('/users/alice')).toEqual(created);

        const error = await backend
          .create({ key: '/users/alice', value: '{}' })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AlreadyExistsError);
        expect(error).toBeInstanceOf(BackendError);
        expect(error).toMatchObject({ code: 'already_exists' });
        expect((await backend.get('/users/alice'))?.value).toBe('{"name":"alice"}');
      });

      it('updates only existing items, and only at the expected revision', async () => {
        await expect(backend.update({ key: '/roles/editor', value: '{}' })).rejects.toBeInstanceOf(
          NotFoundError,
        );
        await expect(backend.update({ key: '/roles/editor', value: '{}' })).rejects.toMatchObject({
          code: 'not_found',
        });

        const v1 = await backend.create({ key: '/roles/editor', value: '1' });
        const v2 = await backend.update({ key: '/roles/editor', value: '2' }, v1.revision);
        expect(BigInt(v2.revision)).toBeGreaterThan(BigInt(v1.revision));

        const stale = backend.update({ key: '/roles/editor', value: '3' }, v1.revision);
        await expect(stale).rejects.toBeInstanceOf(CompareFailedError);
        await expect(
          backend.update({ key: '/roles/editor', value: '3' }, 'nonsense'),
        ).rejects.toMatchObject({ code: 'compare_failed' });
        expect(await backend.get('/roles/editor')).toEqual(v2);

        const v3 = await backend.update({ key: '/roles/editor', value: '3' });
        expect(v3.value).toBe('3');
      });

      it('upsert creates or replaces, whatever is there', async () => {
        const first = await backend.upsert({ key: '/locks/l1', value: 'a' });
        const second = await backend.upsert({ key: '/locks/l1', value: 'b' });
        expect(BigInt(second.revision)).toBeGreaterThan(BigInt(first.revision));
        expect(await backend.get('/locks/l1')).toEqual(second);
      });

      it('deletes only existing items, and only at the expected revision', async () => {
        await expect(backend.delete('/users/nobody')).rejects.toBeInstanceOf(NotFoundError);
        const item = await backend.create({ key: '/users/bob', value: '{}' });
        const newer = await backend.update({ key: '/users/bob', value: '{"v":2}' });
        await expect(backend.delete('/users/bob', item.revision)).rejects.toBeInstanceOf(
          CompareFailedError,
        );
        expect(await backend.get('/users/bob')).toEqual(newer);
        await backend.delete('/users/bob', newer.revision);
        expect(await backend.get('/users/bob')).toBeNull();
        await expect(backend.delete('/users/bob')).rejects.toBeInstanceOf(NotFoundError);

        await backend.create({ key: '/users/carol', value: '{}' });
        await backend.delete('/users/carol');
        expect(await backend.get('/users/carol')).toBeNull();
      });

      it('stores expiry with millisecond precision', async () => {
        const expires = new Date(Date.now() + 3_600_123);
        const item = await backend.create({ key: '/tokens/t1', value: '{}', expires });
        expect(item.expires?.getTime()).toBe(expires.getTime());
        expect((await backend.get('/tokens/t1'))?.expires?.getTime()).toBe(expires.getTime());
      });

      it('rejects malformed keys and prefixes with a plain error', async () => {
        for (const key of ['', 'users/alice', '/users//alice', '/users/', '/', '/a\nb']) {
          const error = await backend.get(key).catch((e: unknown) => e);
          expect(error, key).toBeInstanceOf(Error);
          expect(error, key).not.toBeInstanceOf(BackendError);
          expect((error as Error).message, key).toMatch(/invalid key/);
        }
        await expect(backend.create({ key: 'nope', value: '{}' })).rejects.toThrow(/invalid key/);
        await expect(backend.list({ prefix: 'users' })).rejects.toThrow(/invalid prefix/);
        await expect(backend.list({ prefix: '/users/', limit: 0 })).rejects.toThrow(
          /invalid limit/,
        );
        await expect(backend.deleteRange('')).rejects.toThrow(/invalid prefix/);
        expect(() => backend.watch(['users'])).toThrow(/invalid prefix/);
        expect(() => backend.watch([])).toThrow(/at least one prefix/);
      });
    });

    describe('list', () => {
      it('returns items in key order and isolates /a/ from /ab/', async () => {
        for (const key of ['/ab/x', '/a/c', '/a/b', '/b/z', '/a/a', '/a/b/deeper'])
          await backend.create({ key, value: json(key) });
        const keys = async (prefix: string) =>
          (await backend.list({ prefix })).items.map((item) => item.key);
        expect(await keys('/a/')).toEqual(['/a/a', '/a/b', '/a/b/deeper', '/a/c']);
        expect(await keys('/ab/')).toEqual(['/ab/x']);
        expect(await keys('/')).toEqual(['/a/a', '/a/b', '/a/b/deeper', '/a/c', '/ab/x', '/b/z']);
        expect(await keys('/c/')).toEqual([]);
        expect((await backend.list({ prefix: '/a/' })).nextKey).toBeUndefined();
        expect((await backend.list({ prefix: '/ab/' })).items[0]?.value).toBe('"/ab/x"');
      });

      it('pages with startKey (inclusive) and limit, handing back the next page first key', async () => {
        const all = Array.from({ length: 25 }, (_, i) => `/page/k${String(i).padStart(2, '0')}`);
        for (const key of [...all].reverse()) await backend.create({ key, value: '{}' });
        await backend.create({ key: '/pages/outside', value: '{}' });

        const seen: string[] = [];
        const sizes: number[] = [];
        let startKey: string | undefined;
        do {
          const page = await backend.list({ prefix: '/page/', startKey, limit: 10 });
          seen.push(...page.items.map((item) => item.key));
          sizes.push(page.items.length);
          if (page.nextKey) expect(all).toContain(page.nextKey);
          startKey = page.nextKey;
        } while (startKey);
        expect(sizes).toEqual([10, 10, 5]);
        expect(seen).toEqual(all);

        const fromMiddle = await backend.list({
          prefix: '/page/',
          startKey: '/page/k05',
          limit: 3,
        });
        expect(fromMiddle.items.map((item) => item.key)).toEqual([
          '/page/k05',
          '/page/k06',
          '/page/k07',
        ]);
        expect(fromMiddle.nextKey).toBe('/page/k08');

        // An exact multiple of the limit: the last full page says there is no more.
        const lastFull = await backend.list({ prefix: '/page/', startKey: '/page/k15', limit: 10 });
        expect(lastFull.items).toHaveLength(10);
        expect(lastFull.nextKey).toBeUndefined();

        // A startKey before the prefix starts at the prefix; one past it returns nothing.
        expect(
          (await backend.list({ prefix: '/page/', startKey: '/a', limit: 1 })).items[0]?.key,
        ).toBe('/page/k00');
        expect((await backend.list({ prefix: '/page/', startKey: '/zzz' })).items).toEqual([]);
      });
    });

    describe('deleteRange', () => {
      it('deletes exactly the items under the prefix and reports how many', async () => {
        for (const key of ['/a/1', '/a/2', '/a/3/x', '/ab/1', '/b/1'])
          await backend.create({ key, value: '{}' });
        const watcher = backend.watch(['/']);
        await watcher.ready;
        const reader = new EventReader(watcher);
        expect(await backend.deleteRange('/a/')).toBe(3);
        expect((await backend.list({ prefix: '/' })).items.map((item) => item.key)).toEqual([
          '/ab/1',
          '/b/1',
        ]);
        const events = await reader.take(3);
        expect(events.map((event) => event.type)).toEqual(['delete', 'delete', 'delete']);
        expect(new Set(events.map((event) => (event.type === 'delete' ? event.key : '')))).toEqual(
          new Set(['/a/1', '/a/2', '/a/3/x']),
        );
        expect(await backend.deleteRange('/a/')).toBe(0);
        watcher.close();
      });
    });

    describe('revisions and conditional writes', () => {
      it('gives every write a strictly greater revision across all keys', async () => {
        const watcher = backend.watch(['/rev/']);
        await watcher.ready;
        const reader = new EventReader(watcher);
        const revisions: bigint[] = [];
        for (let i = 0; i < 10; i++) {
          revisions.push(
            BigInt((await backend.create({ key: `/rev/${i}`, value: '{}' })).revision),
          );
          revisions.push(
            BigInt((await backend.upsert({ key: `/rev/${i % 3}`, value: `${i}` })).revision),
          );
        }
        await backend.delete('/rev/5');
        const events = await reader.take(21);
        const delivered = events.map(eventRevision);
        expect(delivered.slice(0, 20)).toEqual(revisions);
        delivered
          .slice(1)
          .forEach((revision, i) => expect(revision).toBeGreaterThan(delivered[i] as bigint));
        watcher.close();
      });

      it('lets exactly one of many concurrent updates at the same revision win', async () => {
        const base = await backend.create({ key: '/race/item', value: 'start' });
        const attempts = Array.from({ length: 20 }, (_, i) =>
          backend.update({ key: '/race/item', value: `writer-${i}` }, base.revision),
        );
        const results = await Promise.allSettled(attempts);
        const winners = results.flatMap((result) =>
          result.status === 'fulfilled' ? [result.value] : [],
        );
        const losers = results.flatMap((result) =>
          result.status === 'rejected' ? [result.reason as unknown] : [],
        );
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(19);
        for (const loser of losers) expect(loser).toBeInstanceOf(CompareFailedError);
        expect(await backend.get('/race/item')).toEqual(winners[0]);
      });

      it('lets exactly one of many concurrent creates of a key win', async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => backend.create({ key: '/race/new', value: `${i}` })),
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        for (const result of results) {
          if (result.status === 'rejected')
            expect(result.reason).toBeInstanceOf(AlreadyExistsError);
        }
      });
    });

    describe('expiry', () => {
      it('hides an expired item from get and list, and lets it be created again', async () => {
        const expires = new Date(Date.now() + 400);
        await backend.create({ key: '/ttl/short', value: 'old', expires });
        await backend.create({
          key: '/ttl/long',
          value: '{}',
          expires: new Date(Date.now() + 60_000),
        });
        expect((await backend.get('/ttl/short'))?.value).toBe('old');
        expect((await backend.list({ prefix: '/ttl/' })).items).toHaveLength(2);

        await sleep(expires.getTime() - Date.now() + 20);
        expect(await backend.get('/ttl/short')).toBeNull();
        expect((await backend.list({ prefix: '/ttl/' })).items.map((item) => item.key)).toEqual([
          '/ttl/long',
        ]);
        await expect(backend.update({ key: '/ttl/short', value: 'x' })).rejects.toBeInstanceOf(
          NotFoundError,
        );
        await expect(backend.delete('/ttl/short')).rejects.toBeInstanceOf(NotFoundError);
        expect((await backend.create({ key: '/ttl/short', value: 'new' })).value).toBe('new');
      });

      it('sweeps expired items and emits a delete event for each', async () => {
        const watcher = backend.watch(['/ttl/']);
        await watcher.ready;
        const reader = new EventReader(watcher);
        const put = await backend.create({
          key: '/ttl/session',
          value: '{}',
          expires: new Date(Date.now() + 300),
        });
        const [putEvent, deleteEvent] = await reader.take(2, 3000);
        expect(putEvent).toEqual({ type: 'put', item: put });
        expect(deleteEvent).toEqual({
          type: 'delete',
          key: '/ttl/session',
          revision: expect.any(String),
        });
        expect(eventRevision(deleteEvent as WatchEvent)).toBeGreaterThan(BigInt(put.revision));
        expect(Date.now()).toBeGreaterThanOrEqual(put.expires?.getTime() ?? Infinity);
        watcher.close();
      });
    });

    describe('watch', () => {
      it('delivers puts and deletes under the watched prefixes only, in revision order', async () => {
        await backend.create({ key: '/w/a/before', value: '{}' });
        const watcher = backend.watch(['/w/a/', '/w/c/']);
        await watcher.ready;
        const reader = new EventReader(watcher);

        const a1 = await backend.create({ key: '/w/a/1', value: '"a1"' });
        await backend.create({ key: '/w/ab/1', value: '{}' });
        await backend.create({ key: '/w/b/1', value: '{}' });
        const c1 = await backend.create({
          key: '/w/c/1',
          value: '"c1"',
          expires: new Date(Date.now() + 60_000),
        });
        const a1v2 = await backend.update({ key: '/w/a/1', value: '"a1v2"' }, a1.revision);
        await backend.delete('/w/c/1');
        const events = await reader.take(4);
        expect(events[0]).toEqual({ type: 'put', item: a1 });
        expect(events[1]).toEqual({ type: 'put', item: c1 });
        expect(events[2]).toEqual({ type: 'put', item: a1v2 });
        expect(events[3]).toMatchObject({ type: 'delete', key: '/w/c/1' });
        expect(eventRevision(events[3] as WatchEvent)).toBeGreaterThan(BigInt(a1v2.revision));
        expect(await reader.peek(150)).toBe('timeout');
        watcher.close();
      });

      it('gives each watcher its own stream', async () => {
        const all = backend.watch(['/']);
        const some = backend.watch(['/x/']);
        await Promise.all([all.ready, some.ready]);
        await backend.create({ key: '/x/1', value: '{}' });
        await backend.create({ key: '/y/1', value: '{}' });
        expect(
          describeEvents(await new EventReader(all).take(2)).map((text) => text.split(' @')[0]),
        ).toEqual(['put /x/1', 'put /y/1']);
        const someReader = new EventReader(some);
        expect(describeEvents(await someReader.take(1))[0]).toMatch(/^put \/x\/1 @/);
        expect(await someReader.peek(100)).toBe('timeout');
        all.close();
        some.close();
      });

      it('stops delivering once closed, and ends the stream', async () => {
        const watcher = backend.watch(['/c/']);
        await watcher.ready;
        const reader = new EventReader(watcher);
        await backend.create({ key: '/c/1', value: '{}' });
        expect(await reader.take(1)).toHaveLength(1);
        watcher.close();
        await backend.create({ key: '/c/2', value: '{}' });
        expect(await reader.peek(200)).toBe('ended');
      });

      it('closes the watcher when a for-await loop breaks', async () => {
        const watcher = backend.watch(['/loop/']);
        await watcher.ready;
        await backend.create({ key: '/loop/1', value: '{}' });
        await backend.create({ key: '/loop/2', value: '{}' });
        const seen: string[] = [];
        for await (const event of watcher.events) {
          seen.push(event.type === 'put' ? event.item.key : event.key);
          break;
        }
        expect(seen).toEqual(['/loop/1']);
        expect(await new EventReader(watcher).peek(100)).toBe('ended');
      });

      it('ends every watcher when the backend closes', async () => {
        const watcher = backend.watch(['/']);
        await watcher.ready;
        const reader = new EventReader(watcher);
        await backend.close();
        expect(await reader.peek(1000)).toBe('ended');
      });
    });

    // Memory storage belongs to one instance, so there is nothing to share.
    if (!capabilities.sharedStorage) return;
    describe('a second instance on the same storage', () => {
      it('sees writes made through the other instance, in order, both ways', async () => {
        const peer = await openPeer();
        const onPeer = peer.watch(['/shared/']);
        const onMain = backend.watch(['/shared/']);
        await Promise.all([onPeer.ready, onMain.ready]);

        const written: Item[] = [];
        for (let i = 0; i < 5; i++) {
          written.push(await backend.create({ key: `/shared/main-${i}`, value: `${i}` }));
          written.push(await peer.create({ key: `/shared/peer-${i}`, value: `${i}` }));
        }
        await peer.delete('/shared/main-0');
        const expected = [
          ...written.map((item) => ({ type: 'put', item })),
          { type: 'delete', key: '/shared/main-0', revision: expect.any(String) },
        ];
        const seenOnPeer = await new EventReader(onPeer).take(11, 5000);
        const seenOnMain = await new EventReader(onMain).take(11, 5000);
        expect(seenOnPeer).toEqual(expected);
        expect(seenOnMain).toEqual(seenOnPeer);
        expect(await peer.get('/shared/main-1')).toEqual(written[2]);
        onPeer.close();
        onMain.close();
      });

      it('lets exactly one conditional update win across instances', async () => {
        const peer = await openPeer();
        const base = await backend.create({ key: '/race/shared', value: 'start' });
        const results = await Promise.allSettled(
          Array.from({ length: 12 }, (_, i) =>
            (i % 2 ? peer : backend).update({ key: '/race/shared', value: `${i}` }, base.revision),
          ),
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        for (const result of results) {
          if (result.status === 'rejected')
            expect(result.reason).toBeInstanceOf(CompareFailedError);
        }
      });
    });
  });
}
