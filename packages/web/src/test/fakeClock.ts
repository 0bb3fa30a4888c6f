/**
 * A clock whose time moves only when a test says so, with the interval and timeout functions the
 * session controller takes. `advance` fires due timers in time order, awaiting the promises they
 * start (microtasks), so async work triggered by a tick has settled when it returns.
 */
interface Timer {
  id: number;
  at: number;
  every?: number;
  callback: () => void;
}

export interface FakeClock {
  now(): number;
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(id: unknown): void;
  setTimeout(callback: () => void, ms: number): unknown;
  advance(ms: number): Promise<void>;
  /** Moves time without firing timers, as when a computer sleeps or a tab is throttled. */
  jump(ms: number): void;
  /** How many timers are pending (intervals count until cleared). */
  pending(): number;
}

export const flushPromises = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

export function createFakeClock(start = 1_700_000_000_000): FakeClock {
  let time = start;
  let nextId = 1;
  const timers = new Map<number, Timer>();

  const add = (callback: () => void, ms: number, repeat: boolean) => {
    const id = nextId++;
    timers.set(id, { id, at: time + ms, every: repeat ? ms : undefined, callback });
    return id;
  };

  return {
    now: () => time,
    setInterval: (callback, ms) => add(callback, ms, true),
    setTimeout: (callback, ms) => add(callback, ms, false),
    clearInterval: (id) => void timers.delete(id as number),
    pending: () => timers.size,
    jump: (ms) => {
      time += ms;
      for (const timer of timers.values()) timer.at = Math.max(timer.at, time);
    },
    async advance(ms) {
      const end = time + ms;
      for (;;) {
        const due = [...timers.values()]
          .filter((t) => t.at <= end)
          .sort((a, b) => a.at - b.at || a.id - b.id)[0];
        if (!due) break;
        time = due.at;
        if (due.every) due.at += due.every;
        else timers.delete(due.id);
        due.callback();
        await flushPromises();
      }
      time = end;
      await flushPromises();
    },
  };
}
