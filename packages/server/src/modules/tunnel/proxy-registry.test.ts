import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryBackend } from '../../backend/memory.js';
import { ProxyIdTakenError, ProxyRegistry, proxiesPrefix } from './proxy-registry.js';

describe('the registry of proxies', () => {
  const backend = new MemoryBackend();
  const opened: ProxyRegistry[] = [];
  const open = (options: { id?: string; addr: string; refreshMs?: number }) => {
    const registry = new ProxyRegistry({
      backend,
      id: options.id,
      address: () => options.addr,
      refreshMs: options.refreshMs,
      onError: () => {},
    });
    opened.push(registry);
    return registry;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((registry) => registry.close()));
    await backend.deleteRange(proxiesPrefix);
  });

  it('registers each proxy with a TTL, lists them all and removes one on close', async () => {
    const one = open({ addr: 'https://one.test:3080' });
    const changes = vi.fn();
    const two = new ProxyRegistry({
      backend,
      address: () => 'https://two.test:3080',
      onError: () => {},
      onChange: changes,
    });
    opened.push(two);
    await Promise.all([one.start(), two.start()]);
    await one.announce();
    await two.announce();
    const item = await backend.get(`${proxiesPrefix}${one.id}`);
    expect(item?.expires?.getTime()).toBeGreaterThan(Date.now() + 20_000);
    await vi.waitFor(() =>
      expect(two.list()).toEqual(
        [
          { id: one.id, addr: 'https://one.test:3080' },
          { id: two.id, addr: 'https://two.test:3080' },
        ].sort((a, b) => (a.id < b.id ? -1 : 1)),
      ),
    );
    expect(changes).toHaveBeenLastCalledWith(two.list());
    const left = vi.fn();
    two.onLeave(left);
    expect(left).not.toHaveBeenCalled();
    await one.close();
    await vi.waitFor(() =>
      expect(two.list()).toEqual([{ id: two.id, addr: 'https://two.test:3080' }]),
    );
    // The one leaving is told to whoever finishes what it left (dead-proxy-recovery.ts).
    expect(left).toHaveBeenCalledTimes(1);
  });

  it('refreshes its own record', async () => {
    const one = open({ addr: 'https://one.test:3080', refreshMs: 20 });
    await one.announce();
    const first = await backend.get(`${proxiesPrefix}${one.id}`);
    await vi.waitFor(async () =>
      expect((await backend.get(`${proxiesPrefix}${one.id}`))?.revision).not.toBe(first?.revision),
    );
  });

  it('never takes over a record another process holds under its id', async () => {
    const holder = open({ id: 'proxy-1', addr: 'https://one.test:3080' });
    await holder.announce();
    const intruder = open({ id: 'proxy-1', addr: 'https://evil.test:3080' });
    await expect(intruder.announce()).rejects.toThrow(ProxyIdTakenError);
    const item = await backend.get(`${proxiesPrefix}proxy-1`);
    expect(JSON.parse(item!.value).addr).toBe('https://one.test:3080');
    // Closing the intruder leaves the holder's record alone.
    await intruder.close();
    expect(await backend.get(`${proxiesPrefix}proxy-1`)).not.toBeNull();
  });
});
