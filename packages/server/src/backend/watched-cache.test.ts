import { afterEach, describe, expect, it, vi } from 'vitest';
import { WatchFailedError, type Backend } from './types.js';
import { WatchedCache } from './watched-cache.js';
import { failingBackend as failingBackendIn } from './testing/failing-backend.testkit.js';

const backends: Backend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

const parse = (item: { value: string }) => JSON.parse(item.value) as { v: number };

const failingBackend = () => failingBackendIn(backends);

describe('WatchedCache', () => {
  it('loads the prefix, then follows puts and deletes', async () => {
    const { backend } = failingBackend();
    await backend.create({ key: '/things/a', value: '{"v":1}' });
    const cache = new WatchedCache(backend, { prefix: '/things/', parse });
    await cache.start();
    expect(cache.get('a')).toEqual({ v: 1 });
    await backend.upsert({ key: '/things/b', value: '{"v":2}' });
    await backend.delete('/things/a');
    await vi.waitFor(() => expect(cache.names()).toEqual(['b']));
    await cache.close();
  });

  it('lists again and watches again when the watch fails, catching up on what it missed', async () => {
    const { backend, failWatcher } = failingBackend();
    await backend.create({ key: '/things/a', value: '{"v":1}' });
    const errors: unknown[] = [];
    const cache = new WatchedCache(backend, {
      prefix: '/things/',
      parse,
      retryMs: 5,
      onError: (error) => errors.push(error),
    });
    const deleted: string[] = [];
    cache.on('delete', (name: string) => deleted.push(name));
    await cache.start();
    failWatcher();
    await backend.delete('/things/a');
    await backend.create({ key: '/things/c', value: '{"v":3}' });
    await vi.waitFor(() => expect(cache.names()).toEqual(['c']));
    expect(errors[0]).toBeInstanceOf(WatchFailedError);
    expect(deleted).toEqual(['a']);
    // Watching again: later changes still arrive.
    await backend.upsert({ key: '/things/c', value: '{"v":4}' });
    await vi.waitFor(() => expect(cache.get('c')).toEqual({ v: 4 }));
    await cache.close();
  });

  it('closes at once while it waits to try again in an outage', async () => {
    const { backend, outage } = failingBackend();
    const cache = new WatchedCache(backend, { prefix: '/things/', parse, retryMs: 60_000 });
    await cache.start();
    outage();
    await vi.waitFor(() => expect(cache.stale).toBe(true));
    // Waiting a minute before the next try: closing must not wait for it (nor hang on it).
    const started = Date.now();
    await cache.close();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('skips a value it cannot parse, reporting it', async () => {
    const { backend } = failingBackend();
    await backend.create({ key: '/things/bad', value: 'not json' });
    const errors: unknown[] = [];
    const cache = new WatchedCache(backend, {
      prefix: '/things/',
      parse,
      onError: (error) => errors.push(error),
    });
    await cache.start();
    expect(cache.names()).toEqual([]);
    expect(errors).toHaveLength(1);
    await cache.close();
  });
});
