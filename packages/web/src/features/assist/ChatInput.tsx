import { ActionIcon, Group, Textarea } from '@mantine/core';
import { assistMessageMaxChars } from '@postern/contracts';
import { IconSend } from '@tabler/icons-react';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';

interface Props {
  disabled: boolean;
  /** False when the message could not go: the text stays for another try. */
  onSend: (text: string) => boolean;
}

/** Where the user writes: Enter sends, Shift+Enter starts a new line. */
export function ChatInput({ disabled, onSend }: Props) {
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  // Disabling the input while the assistant answers took its focus: give it back after.
  useEffect(() => {
    if (!disabled && document.activeElement === document.body) input.current?.focus();
  }, [disabled]);
  const canSend = !disabled && text.trim() !== '';
  const send = () => {
    if (canSend && onSend(text)) setText('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter while an input method composes a word confirms the word, not the message.
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    send();
  };
  return (
    <Group gap="xs" align="flex-end" wrap="nowrap">
      <Textarea
        ref={input}
        aria-label="Message"
        placeholder="Ask about your servers"
        value={text}
        onChange={(event) => setText(event.currentTarget.value)}
        onKeyDown={onKeyDown}
        maxLength={assistMessageMaxChars}
        autosize
        minRows={1}
        maxRows={8}
        disabled={disabled}
        style={{ flex: 1 }}
      />
      <ActionIcon size="lg" aria-label="Send" onClick={send} disabled={!canSend}>
        <IconSend size={18} />
      </ActionIcon>
    </Group>
  );
}
