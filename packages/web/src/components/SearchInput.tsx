import { TextInput } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';

interface Props {
  /** The search in force (e.g. from the URL). */
  value: string;
  /** Called once typing pauses for `delayMs`, with the new text. */
  onSearch: (value: string) => void;
  delayMs?: number;
  label?: string;
  placeholder?: string;
  maw?: number;
}

/** A search box that reports its text after a pause in typing (server-side searches). */
export function SearchInput(props: Props) {
  const { value, onSearch, delayMs = 300, label = 'Search', placeholder, maw = 360 } = props;
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // A search changed elsewhere (reset, back button) shows here too.
  const [shown, setShown] = useState(value);
  if (value !== shown) {
    setShown(value);
    setText(value);
  }

  useEffect(() => () => clearTimeout(timer.current), []);

  const change = (next: string) => {
    setText(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (next !== value) onSearch(next);
    }, delayMs);
  };

  return (
    <TextInput
      type="search"
      aria-label={label}
      placeholder={placeholder}
      value={text}
      onChange={(e) => change(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key !== 'Enter') return;
        clearTimeout(timer.current);
        if (text !== value) onSearch(text);
      }}
      maw={maw}
    />
  );
}
