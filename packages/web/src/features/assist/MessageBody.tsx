import { Alert, Group, Paper, Text } from '@mantine/core';
import type { AssistCommand, AssistMessage } from '@postern/contracts';
import type { ReactNode } from 'react';
import { AssistantBubble } from './AssistantBubble';
import { ConnectionCard } from './ConnectionCard';
import { Markdown } from './Markdown';
import { messageItem } from './messageItems';
import { ServerPanel, SummaryBlock } from './RunResults';

interface Props {
  message: AssistMessage;
  clusterId: string;
  /** The card of a proposed command (it runs, so its page supplies it); read-only without. */
  renderCommand?: (command: AssistCommand) => ReactNode;
}

/** One message of a conversation, drawn by its type. */
export function MessageBody({ message, clusterId, renderCommand }: Props) {
  const item = messageItem(message);
  switch (item.kind) {
    case 'user':
      return (
        <Group justify="flex-end">
          <Paper
            component="article"
            aria-label="You"
            p="sm"
            radius="md"
            maw="80%"
            bg="var(--mantine-primary-color-light)"
          >
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {item.text}
            </Text>
          </Paper>
        </Group>
      );
    case 'assistant':
      return <AssistantBubble>{<Markdown text={item.text} />}</AssistantBubble>;
    case 'error':
      return (
        <Alert color="red" role="alert" title="The assistant could not answer">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {item.text}
          </Text>
        </Alert>
      );
    case 'command':
      return renderCommand ? (
        renderCommand(item.command)
      ) : (
        <ReadOnlyCommand command={item.command} />
      );
    case 'result':
      return (
        <ServerPanel
          hostname={item.result.node_name || item.result.node_id}
          output={item.result.output}
          result={item.result}
          clusterId={clusterId}
        />
      );
    case 'summary':
      return <SummaryBlock summary={item.summary} />;
    case 'connection':
      return <ConnectionCard connection={item.connection} clusterId={clusterId} />;
    case 'unreadable':
      return (
        <AssistantBubble>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {item.text}
          </Text>
        </AssistantBubble>
      );
  }
}

function ReadOnlyCommand({ command }: { command: AssistCommand }) {
  return (
    <AssistantBubble>
      <Markdown text={`\`\`\`\n${command.command}\n\`\`\``} />
    </AssistantBubble>
  );
}
