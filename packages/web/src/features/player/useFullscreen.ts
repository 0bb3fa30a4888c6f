import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * The Fullscreen API on one element: whether it is the fullscreen element now, and a toggle.
 * Leaving by Esc (the browser's own way out) is seen through `fullscreenchange`.
 */
export function useFullscreen<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [active, setActive] = useState(false);

  useEffect(() => {
    const update = () =>
      setActive(ref.current !== null && document.fullscreenElement === ref.current);
    document.addEventListener('fullscreenchange', update);
    return () => document.removeEventListener('fullscreenchange', update);
  }, []);

  const toggle = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    const request = document.fullscreenElement
      ? document.exitFullscreen?.()
      : element.requestFullscreen?.();
    // A refusal (a browser policy, no API at all) leaves the page as it was.
    void request?.catch(() => undefined);
  }, []);

  return { ref, active, toggle };
}
