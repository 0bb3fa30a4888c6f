import { useEffect, useState } from 'react';

/**
 * Milliseconds until `until`, updated every second (never below 0); undefined without a time.
 */
export function useTimeLeft(until: Date | undefined, now: () => number = Date.now) {
  const end = until?.getTime();
  const left = () => (end === undefined ? undefined : Math.max(0, end - now()));
  const [value, setValue] = useState(left);
  useEffect(() => {
    setValue(left());
    if (end === undefined) return;
    const id = window.setInterval(() => setValue(left()), 1000);
    return () => window.clearInterval(id);
    // `left` is rebuilt each render from `end` and `now`, which are the real inputs.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [end, now]);
  return value;
}
