import { Select, TextInput } from '@mantine/core';
import { useState } from 'react';
import { presetLabels, type RangePreset, type TimeRangeFilter } from './timeRange';

interface Props {
  value: TimeRangeFilter;
  onChange: (range: TimeRangeFilter) => void;
}

const presetChoices = Object.entries(presetLabels).map(([value, label]) => ({ value, label }));

const typedFormat = 'YYYY-MM-DD HH:mm';
const typed = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2})$/;

/**
 * Text as the user types it (`2024-05-01 18:30`, 24-hour) to the filter's local date-time
 * (`2024-05-01T18:30`), or undefined when it is not a real moment.
 */
export function parseTypedDateTime(text: string): string | undefined {
  const match = typed.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi] = match.map(Number) as number[];
  const date = new Date(y!, mo! - 1, d!, h!, mi!);
  const real =
    date.getFullYear() === y &&
    date.getMonth() === mo! - 1 &&
    date.getDate() === d &&
    date.getHours() === h &&
    date.getMinutes() === mi;
  if (!real) return undefined;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${y}-${pad(mo!)}-${pad(d!)}T${pad(h!)}:${pad(mi!)}`;
}

/**
 * One end of a custom range, typed in 24-hour time like every time the console shows. The
 * browser's own date-time field follows the OS locale instead (AM/PM in the US), so it is not used.
 */
function DateTimeField({
  label,
  value,
  onChange,
  error,
}: {
  label: string;
  /** `YYYY-MM-DDTHH:mm`, local time. */
  value: string;
  onChange: (value: string) => void;
  error?: string;
}) {
  const shownText = value.replace('T', ' ');
  const [text, setText] = useState(shownText);
  const [shown, setShown] = useState(value);
  if (value !== shown) {
    setShown(value);
    setText(shownText);
  }
  const parsed = parseTypedDateTime(text);
  return (
    <TextInput
      label={label}
      placeholder={typedFormat}
      value={text}
      onChange={(e) => {
        const next = e.currentTarget.value;
        setText(next);
        const local = parseTypedDateTime(next);
        if (local && local !== value) {
          setShown(local);
          onChange(local);
        }
      }}
      error={parsed === undefined ? `Use ${typedFormat} (24-hour)` : error}
      autoComplete="off"
      w={190}
    />
  );
}

/**
 * The preset choice, and From/To once the preset is custom. A fragment, so it lines up inside
 * the caller's own row of filters.
 */
export function TimeRangeInputs({ value, onChange }: Props) {
  const set = (change: Partial<TimeRangeFilter>) => onChange({ ...value, ...change });
  return (
    <>
      <Select
        label="Time range"
        data={presetChoices}
        value={value.preset}
        onChange={(preset) => preset && set({ preset: preset as RangePreset })}
        allowDeselect={false}
        w={170}
      />
      {value.preset === 'custom' && (
        <>
          <DateTimeField
            label="From"
            value={value.customFrom}
            onChange={(customFrom) => set({ customFrom })}
          />
          <DateTimeField
            label="To"
            value={value.customTo}
            onChange={(customTo) => set({ customTo })}
            error={value.customFrom >= value.customTo ? 'Must be after From' : undefined}
          />
        </>
      )}
    </>
  );
}
