import { Alert, Box, Button, Group, Loader, Stack, Text } from '@mantine/core';
import type { AssistCommand, AssistMessage } from '@postern/contracts';
import { useEffect, useRef, type ReactNode } from 'react';
import type { ChatState } from './assistChatSocket';
import { ChatInput } from './ChatInput';
import { Markdown } from './Markdown';
import { AssistantBubble } from './AssistantBubble';
import { MessageBody } from './MessageBody';

interface Props {
  /** The stored messages, then those of this visit. */
  messages: AssistMessage[];
  chat: ChatState;
  /** The stored messages are being read: nothing is sent meanwhile. */
  reading?: boolean;
  onSend: (text: string) => boolean;
  onReconnect: () => void;
  clusterId: string;
  renderCommand: (command: AssistCommand) => ReactNode;
}

/** An open conversation: its messages, the turn under way, the connection, the input. */
export function ConversationView(props: Props) {
  const { messages, chat, reading, onSend, onReconnect, clusterId, renderCommand } = props;
  const log = useRef<HTMLDivElement>(null);
  // Follow the conversation as it grows, as a chat does.
  useEffect(() => {
    const box = log.current;
    if (box) box.scrollTop = box.scrollHeight;
  }, [messages.length, chat.partial, chat.progress]);

  return (
    <Stack gap="sm" h="100%">
      <Box
        ref={log}
        role="log"
        aria-label="Messages"
        style={{ flex: 1, minHeight: 0, overflowY: 'auto' }}
      >
        <Stack gap="sm" p={2}>
          {messages.length === 0 && !chat.turnRunning && (
            <Text size="sm" c="dimmed">
              Ask about your servers, or have a command run on them.
            </Text>
          )}
          {messages.map((message, i) => (
            <MessageBody
              key={i}
              message={message}
              clusterId={clusterId}
              renderCommand={renderCommand}
            />
          ))}
          {chat.partial && (
            <AssistantBubble>
              <Markdown text={chat.partial} />
            </AssistantBubble>
          )}
          {chat.turnRunning && (
            <Group gap={6} role="status">
              <Loader size="xs" />
              <Text size="xs" c="dimmed">
                {chat.progress || 'Thinking…'}
              </Text>
            </Group>
          )}
        </Stack>
      </Box>
      <ConnectionNotice chat={chat} onReconnect={onReconnect} />
      <ChatInput
        disabled={reading || chat.connection !== 'ready' || chat.turnRunning}
        onSend={onSend}
      />
    </Stack>
  );
}

function ConnectionNotice({ chat, onReconnect }: { chat: ChatState; onReconnect: () => void }) {
  if (chat.connection === 'connecting') {
    return (
      <Group gap={6}>
        <Loader size="xs" />
        <Text size="xs" c="dimmed">
          Connecting to the assistant…
        </Text>
      </Group>
    );
  }
  if (chat.connection === 'refused' || chat.connection === 'lost') {
    const title = chat.connection === 'refused' ? 'The assistant refused' : 'Connection lost';
    return (
      <Alert color="red" role="alert" title={title}>
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {chat.problem}
          </Text>
          <Button size="xs" variant="light" color="red" onClick={onReconnect}>
            Reconnect
          </Button>
        </Group>
      </Alert>
    );
  }
  if (chat.error) {
    return (
      <Alert color="red" role="alert" title="The assistant says">
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {chat.error}
        </Text>
      </Alert>
    );
  }
  return null;
}
