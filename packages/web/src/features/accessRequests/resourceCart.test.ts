import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../test/memoryStorage';
import { createResourceCart, useResourceCart } from './resourceCart';

const db1 = { kind: 'node', clusterName: 'localhost', name: 'id-1', title: 'db-1' } as const;
const web1 = { kind: 'node', clusterName: 'localhost', name: 'id-2', title: 'web-1' } as const;

describe('the resource cart', () => {
  it('adds once, removes, clears, and keeps its items in the storage it is given', () => {
    const storage = new MemoryStorage();
    const cart = createResourceCart(storage);
    cart.add(db1);
    cart.add(db1);
    cart.add(web1);
    expect(cart.items()).toEqual([db1, web1]);
    expect(cart.has({ kind: 'node', clusterName: 'localhost', name: 'id-1' })).toBe(true);
    // Another cart over the same storage (the page loaded again) sees the same items.
    expect(createResourceCart(storage).items()).toEqual([db1, web1]);
    cart.remove(db1);
    expect(cart.items()).toEqual([web1]);
    cart.clear();
    expect(cart.items()).toEqual([]);
    expect(storage.getItem('grv_teleport_access_request_cart')).toBeNull();
  });

  it('ignores stored data that is not a list of resources', () => {
    const storage = new MemoryStorage();
    storage.setItem('grv_teleport_access_request_cart', '{nope');
    expect(createResourceCart(storage).items()).toEqual([]);
    storage.setItem('grv_teleport_access_request_cart', JSON.stringify([db1, { kind: 'x' }]));
    expect(createResourceCart(storage).items()).toEqual([db1]);
  });

  it('re-renders its users when it changes', () => {
    const cart = createResourceCart(new MemoryStorage());
    const { result } = renderHook(() => useResourceCart(cart));
    expect(result.current.items).toEqual([]);
    act(() => cart.add(db1));
    expect(result.current.items).toEqual([db1]);
  });
});
