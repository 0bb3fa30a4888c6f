import { useEffect } from 'react';
import type { PlaybackControls } from './useEngineState';

export const keySeekMs = 5000;

/** Where a key belongs to the focused control, not to the player. */
function ownsKey(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement) return true;
  if (target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement && target.type !== 'range') {
    // A checkbox takes Space; text fields take every key.
    return target.type !== 'checkbox' || key === ' ';
  }
  // A focused button is pressed by Space already.
  return target instanceof HTMLButtonElement && key === ' ';
}

/** Space plays or pauses; ← and → seek 5 s back or on (also on the slider, for one step size). */
export function usePlayerKeys(controls: PlaybackControls): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || ownsKey(event.target, event.key)) {
        return;
      }
      if (event.key === ' ') controls.toggle();
      else if (event.key === 'ArrowLeft') controls.seekBy(-keySeekMs);
      else if (event.key === 'ArrowRight') controls.seekBy(keySeekMs);
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [controls]);
}
