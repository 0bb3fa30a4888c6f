import { useSyncExternalStore } from 'react';

/**
 * A state that changes outside React (a socket's frames), read by a view through
 * `useStoreState`. Each change is a new object, so React sees it.
 */
export class StateStore<S extends object> {
  private current: S;
  private readonly listeners = new Set<() => void>();

  constructor(initial: S) {
    this.current = initial;
  }

  get state(): S {
    return this.current;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  protected update(change: Partial<S>): void {
    this.current = { ...this.current, ...change };
    for (const listener of this.listeners) listener();
  }
}

const noSubscription = () => () => undefined;

/** The store's state, or `fallback` until there is a store. */
export function useStoreState<S extends object>(store: StateStore<S> | undefined, fallback: S): S {
  return useSyncExternalStore(store?.subscribe ?? noSubscription, () => store?.state ?? fallback);
}
