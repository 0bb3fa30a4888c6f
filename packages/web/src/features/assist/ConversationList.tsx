import { ActionIcon, Group, Menu, NavLink, Stack, Text } from '@mantine/core';
import type { AssistConversation } from '@postern/contracts';
import { IconDots } from '@tabler/icons-react';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import { formatDate, parseTimestamp } from '../../lib/format';

interface Props {
  conversations: AssistConversation[];
  selectedId?: string;
  onRename: (conversation: AssistConversation) => void;
  onDelete: (conversation: AssistConversation) => void;
}

/** The user's conversations, newest first, each with its Rename and Delete. */
export function ConversationList({ conversations, selectedId, onRename, onDelete }: Props) {
  if (conversations.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No conversations yet.
      </Text>
    );
  }
  return (
    <Stack gap={2} component="nav" aria-label="Conversations">
      {conversations.map((conversation) => {
        const { id, title } = conversation;
        const created = parseTimestamp(conversation.created_time);
        const selected = id === selectedId;
        return (
          <Group key={id} gap={2} wrap="nowrap">
            <NavLink
              component={Link}
              to={routePath('assist', { conversationId: id })}
              label={title}
              description={created ? formatDate(created) : undefined}
              active={selected}
              aria-current={selected ? 'page' : undefined}
              styles={{ label: { overflowWrap: 'anywhere' } }}
              style={{ flex: 1, minWidth: 0 }}
            />
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <ActionIcon variant="subtle" color="gray" aria-label={`Options for ${title}`}>
                  <IconDots size={16} />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={() => onRename(conversation)}>Rename</Menu.Item>
                <Menu.Item color="red" onClick={() => onDelete(conversation)}>
                  Delete
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        );
      })}
    </Stack>
  );
}
