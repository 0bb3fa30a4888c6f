import { TextInput } from '@mantine/core';
import { useState } from 'react';

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
 * A date and time typed in 24-hour time like every time the console shows. The browser's own
 * date-time field follows the OS locale instead (AM/PM in the US), so it is not used. With
 * `optional`, an empty field is a value too (''), for forms where the time may be left out.
 */
export function DateTimeField({
  label,
  description,
  value,
  onChange,
  error,
  optional = false,
  width = 190,
}: {
  label: string;
  description?: string;
  /** `YYYY-MM-DDTHH:mm`, local time ('' for none when optional). */
  value: string;
  onChange: (value: string) => void;
  error?: string;
  optional?: boolean;
  /** Narrow by default, for a range's two fields side by side; a form's field takes its column. */
  width?: number | '100%';
}) {
  const shownText = value.replace('T', ' ');
  const [text, setText] = useState(shownText);
  const [shown, setShown] = useState(value);
  if (value !== shown) {
    setShown(value);
    setText(shownText);
  }
  const read = (typed: string) =>
    optional && typed.trim() === '' ? '' : parseTypedDateTime(typed);
  const parsed = read(text);
  return (
    <TextInput
      label={label}
      description={description}
      placeholder={typedFormat}
      value={text}
      onChange={(e) => {
        const next = e.currentTarget.value;
        setText(next);
        const local = read(next) ?? (optional ? next : undefined);
        if (local !== undefined && local !== value) {
          setShown(local);
          onChange(local);
        }
      }}
      error={parsed === undefined ? `Use ${typedFormat} (24-hour)` : error}
      autoComplete="off"
      w={width}
    />
  );
}
