import { requestableResourceKinds, type ResourceId } from '@postern/contracts';
import { useSyncExternalStore } from 'react';
import { storageKeys } from '../../lib/storageKeys';

/** A resource picked for the next access request, with the name to show for it. */
export interface CartItem extends ResourceId {
  /** What the user recognises (a server's hostname); `name` is what the request names. */
  title: string;
}

export interface ResourceCart {
  items(): readonly CartItem[];
  has(item: ResourceId): boolean;
  add(item: CartItem): void;
  remove(item: ResourceId): void;
  clear(): void;
  subscribe(listener: () => void): () => void;
}

const sameResource = (a: ResourceId, b: ResourceId) =>
  a.kind === b.kind && a.name === b.name && a.clusterName === b.clusterName;

function isCartItem(value: unknown): value is CartItem {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (requestableResourceKinds as readonly unknown[]).includes(v.kind) &&
    typeof v.name === 'string' &&
    typeof v.clusterName === 'string' &&
    typeof v.title === 'string'
  );
}

function read(storage: Storage): CartItem[] {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(storageKeys.accessRequestCart) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isCartItem) : [];
  } catch {
    return [];
  }
}

/**
 * The resource cart (reference: the access request checkout): resource pages add to it, the new
 * request form reads it. Kept in sessionStorage, so it survives page loads (assuming roles
 * reloads the page) but not the browser tab.
 */
export function createResourceCart(storage: Storage): ResourceCart {
  let current: readonly CartItem[] = read(storage);
  const listeners = new Set<() => void>();
  const write = (next: CartItem[]) => {
    current = next;
    if (next.length === 0) storage.removeItem(storageKeys.accessRequestCart);
    else storage.setItem(storageKeys.accessRequestCart, JSON.stringify(next));
    for (const listener of listeners) listener();
  };
  return {
    items: () => current,
    has: (item) => current.some((i) => sameResource(i, item)),
    add: (item) => {
      if (!current.some((i) => sameResource(i, item))) write([...current, item]);
    },
    remove: (item) => write(current.filter((i) => !sameResource(i, item))),
    clear: () => write([]),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

let browserCart: ResourceCart | undefined;

/** The cart of this browser tab. */
export function resourceCart(): ResourceCart {
  browserCart ??= createResourceCart(window.sessionStorage);
  return browserCart;
}

/** The cart and its items, re-rendering when they change. */
export function useResourceCart(cart: ResourceCart = resourceCart()) {
  const items = useSyncExternalStore(cart.subscribe, cart.items);
  return { cart, items };
}
