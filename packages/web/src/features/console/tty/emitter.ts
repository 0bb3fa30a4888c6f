/**
 * A tiny typed event emitter: the terminal client runs in the browser and in Node (the
 * benchmark's headless client), so it depends on neither the DOM's EventTarget nor node:events.
 */
export type Listener<Args extends unknown[]> = (...args: Args) => void;

export class Emitter<Events extends { [K in keyof Events]: unknown[] }> {
  private listeners: { [K in keyof Events]?: Set<Listener<Events[K]>> } = {};

  /** Adds a listener; returns the function that removes it. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    const set = (this.listeners[event] ??= new Set());
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  protected emit<K extends keyof Events>(event: K, ...args: Events[K]): void {
    // A copy, so a listener that removes itself does not skip the next one.
    for (const listener of [...(this.listeners[event] ?? [])]) listener(...args);
  }

  protected removeAllListeners(): void {
    this.listeners = {};
  }
}
