import { Button, Grid, Paper, Stack, Text, Title } from '@mantine/core';
import type { AssistConversation } from '@postern/contracts';
import { IconPlus, IconSparkles } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { AttemptView } from '../../components/AttemptView';
import type { Attempt } from '../../lib/attempt';
import { ConversationList } from './ConversationList';

interface Props {
  conversations: Attempt<AssistConversation[]>;
  onRetry: () => void;
  selectedId?: string;
  onNew: () => void;
  creating: boolean;
  onRename: (conversation: AssistConversation) => void;
  onDelete: (conversation: AssistConversation) => void;
  /** The open conversation, or the invitation to start one. */
  children: ReactNode;
}

/** Assist: the conversations on the left, the open one beside them. Pure. */
export function AssistView(props: Props) {
  const { conversations, onRetry, selectedId, onNew, creating, onRename, onDelete, children } =
    props;
  return (
    <Stack gap="md">
      <Title order={2}>Assist</Title>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 3 }}>
          <Stack gap="sm">
            <Button
              variant="light"
              leftSection={<IconPlus size={16} />}
              onClick={onNew}
              loading={creating}
            >
              New conversation
            </Button>
            <AttemptView attempt={conversations} onRetry={onRetry}>
              {(list) => (
                <ConversationList
                  conversations={list}
                  selectedId={selectedId}
                  onRename={onRename}
                  onDelete={onDelete}
                />
              )}
            </AttemptView>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 9 }}>
          {/* The chat keeps to the window: its messages scroll, the input stays in sight. */}
          <Paper withBorder p="md" radius="md" h="calc(100dvh - 200px)" mih={420}>
            {children}
          </Paper>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

/** No conversation open: what the assistant is for, and a way to start. */
export function NoConversation({ onNew, creating }: { onNew: () => void; creating: boolean }) {
  return (
    <Stack align="center" justify="center" h="100%" gap="md">
      <IconSparkles size={40} stroke={1.4} aria-hidden="true" />
      <Text c="dimmed" ta="center">
        Ask about your servers, or have a command run on them
      </Text>
      <Button onClick={onNew} loading={creating}>
        New conversation
      </Button>
    </Stack>
  );
}
