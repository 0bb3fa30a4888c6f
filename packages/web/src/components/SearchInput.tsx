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
  /** The widest the box grows (px); it never grows past its container either. */
  maw?: number;
}

/**
 * Wide enough for the placeholder: `ch` is the width of a digit, a little more than the average
 * letter of the UI font, plus room for the padding and the browser's clear button.
 */
const widthFor = (placeholder: string | undefined) =>
  placeholder ? `calc(${placeholder.length}ch + 2.5rem)` : undefined;

/** A search box that reports its text after a pause in typing (server-side searches). */
export function SearchInput(props: Props) {
  const { value, onSearch, delayMs = 300, label = 'Search', placeholder, maw = 420 } = props;
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
      w={widthFor(placeholder)}
      maw={`min(${maw}px, 100%)`}
    />
  );
}
