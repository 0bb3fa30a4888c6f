import { ActionIcon, Group, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { TerminalEngine } from './terminalEngine';

/** Find in the scrollback: Enter for the next match, Shift+Enter the previous, Escape closes. */
export function FindBar({ engine, onClose }: { engine: TerminalEngine; onClose: () => void }) {
  const [term, setTerm] = useState('');
  const [missing, setMissing] = useState(false);
  const find = (backwards: boolean) => {
    if (!term) return;
    setMissing(!(backwards ? engine.findPrevious(term) : engine.findNext(term)));
  };
  return (
    <Group
      role="search"
      aria-label="Find in terminal"
      px="sm"
      py={4}
      gap="xs"
      wrap="nowrap"
      style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
    >
      <TextInput
        size="xs"
        aria-label="Find"
        placeholder="Find in scrollback"
        value={term}
        autoFocus
        error={missing ? true : undefined}
        onChange={(e) => {
          setTerm(e.currentTarget.value);
          setMissing(false);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') find(e.shiftKey);
          else if (e.key === 'Escape') onClose();
        }}
        style={{ flex: 1, maxWidth: 320 }}
      />
      {missing && (
        <Text size="xs" c="red">
          No matches
        </Text>
      )}
      <ActionIcon variant="subtle" aria-label="Previous match" onClick={() => find(true)}>
        ↑
      </ActionIcon>
      <ActionIcon variant="subtle" aria-label="Next match" onClick={() => find(false)}>
        ↓
      </ActionIcon>
      <ActionIcon variant="subtle" aria-label="Close find" onClick={onClose}>
        ✕
      </ActionIcon>
    </Group>
  );
}
