import { Box, UnstyledButton } from '@mantine/core';
import type { RecordingMark } from '@postern/contracts';
import { useEffect, useRef } from 'react';
import { formatDuration } from '../../lib/format';

interface Props {
  shownMs: number;
  durationMs: number;
  /** Joins and resizes, drawn above the track; a click seeks to one. */
  marks: readonly RecordingMark[];
  /** The thumb moves (every input event of a drag). */
  onDrag: (ms: number) => void;
  /** The thumb was let go (the native change event), or a marker was clicked: seek there. */
  onSeek: (ms: number) => void;
}

/**
 * Half the width of Chromium's and Firefox's range thumb: the thumb's centre, where a value
 * sits, travels from this far in from the start to this far in from the end.
 */
const thumbHalfPx = 8;

/** Theme colours (Mantine CSS variables, which follow the colour scheme). */
const trackAccent = 'var(--mantine-primary-color-filled)';
const markColour: Record<RecordingMark['kind'], string> = {
  join: 'var(--mantine-color-teal-filled)',
  resize: 'var(--mantine-color-orange-filled)',
};

/**
 * The playback position slider. React's onChange fires on every move of a drag; seeking on each
 * would fetch a chunk per pixel, so a drag only moves the thumb and the seek waits for the
 * native `change`, which fires when the thumb is let go.
 */
export function Timeline({ shownMs, durationMs, marks, onDrag, onSeek }: Props) {
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const input = inputRef.current;
    if (!input) return;
    const commit = () => onSeek(Number(input.value));
    input.addEventListener('change', commit);
    return () => input.removeEventListener('change', commit);
  }, [onSeek]);

  return (
    <Box style={{ position: 'relative', flex: 1, minWidth: 80, paddingTop: 10 }}>
      {marks.length > 0 && (
        <Box role="group" aria-label="Timeline markers" style={{ position: 'absolute', inset: 0 }}>
          {marks.map((mark, index) => (
            <TimelineMark
              key={`${mark.t}-${index}`}
              mark={mark}
              fraction={durationMs > 0 ? Math.min(1, (mark.t * 1000) / durationMs) : 0}
              onSeek={onSeek}
            />
          ))}
        </Box>
      )}
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
        // The thumb and the played part in the theme's primary colour; the rest of the track
        // follows the colour scheme, which Mantine sets on the document (`color-scheme`).
        style={{ display: 'block', width: '100%', margin: 0, accentColor: trackAccent }}
      />
    </Box>
  );
}

function TimelineMark({
  mark,
  fraction,
  onSeek,
}: {
  mark: RecordingMark;
  fraction: number;
  onSeek: (ms: number) => void;
}) {
  const at = formatDuration(mark.t * 1000);
  const text =
    mark.kind === 'join' ? `${mark.label} at ${at}` : `Resized to ${mark.label} at ${at}`;
  return (
    <UnstyledButton
      aria-label={text}
      title={text}
      data-kind={mark.kind}
      onClick={() => onSeek(mark.t * 1000)}
      style={{
        position: 'absolute',
        top: 0,
        left: `calc(${thumbHalfPx}px + (100% - ${2 * thumbHalfPx}px) * ${fraction})`,
        width: 8,
        height: 8,
        marginLeft: -4,
        borderRadius: mark.kind === 'join' ? '50%' : 1,
        background: markColour[mark.kind],
      }}
    />
  );
}
