import { useEffect, useRef } from 'react';

interface Props {
  shownMs: number;
  durationMs: number;
  /** The thumb moves (every input event of a drag). */
  onDrag: (ms: number) => void;
  /** The thumb was let go (the native change event): seek there. */
  onSeek: (ms: number) => void;
}

/**
 * The playback position slider. React's onChange fires on every move of a drag; seeking on each
 * would fetch a chunk per pixel, so a drag only moves the thumb and the seek waits for the
 * native `change`, which fires when the thumb is let go.
 */
export function Timeline({ shownMs, durationMs, onDrag, onSeek }: Props) {
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const input = inputRef.current;
    if (!input) return;
    const commit = () => onSeek(Number(input.value));
    input.addEventListener('change', commit);
    return () => input.removeEventListener('change', commit);
  }, [onSeek]);

  return (
    <input
      ref={inputRef}
      type="range"
      aria-label="Playback position"
      min={0}
      max={durationMs}
      step={1}
      value={Math.min(shownMs, durationMs)}
      onChange={(event) => {
        // The native change (let go) reaches React too: it was handled by `commit`.
        if (event.nativeEvent.type === 'input') onDrag(Number(event.currentTarget.value));
      }}
      style={{ flex: 1, minWidth: 80 }}
    />
  );
}
