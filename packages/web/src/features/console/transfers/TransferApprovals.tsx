import { Button, Group, Text } from '@mantine/core';
import { useSyncExternalStore } from 'react';
import { PaneStrip } from './PaneStrip';
import { describeAsk, type ModeratedTransfers, type TransferPrompt } from './moderatedTransfers';

/** The others' file transfer requests in this tab's session, as they change. */
export function useTransferPrompts(transfers: ModeratedTransfers): readonly TransferPrompt[] {
  return useSyncExternalStore(
    (listener) => transfers.subscribe(listener),
    () => transfers.prompts,
  );
}

interface Props {
  prompts: readonly TransferPrompt[];
  onDecide: (requestId: string, approved: boolean) => void;
  /**
   * This tab may decide: false for an observer, whom the server does not let approve or deny;
   * they still see what is asked.
   */
  canDecide?: boolean;
}

/**
 * A moderated session's file transfer requests, for its moderators and other peers to approve
 * or deny (docs/file-transfer.md, "Moderated sessions"). One row per request, oldest first.
 */
export function TransferApprovals({ prompts, onDecide, canDecide = true }: Props) {
  if (prompts.length === 0) return null;
  return (
    <PaneStrip
      label="File transfer requests"
      style={{ background: 'var(--mantine-color-yellow-light)' }}
    >
      {prompts.map((prompt) => (
        <ApprovalRow
          key={prompt.requestId}
          prompt={prompt}
          onDecide={onDecide}
          canDecide={canDecide}
        />
      ))}
    </PaneStrip>
  );
}

function ApprovalRow({
  prompt,
  onDecide,
  canDecide,
}: { prompt: TransferPrompt } & Required<Omit<Props, 'prompts'>>) {
  const question = `${prompt.requester} wants to ${describeAsk(prompt)}`;
  return (
    <Group component="li" aria-label={question} gap="xs" wrap="nowrap" justify="space-between">
      <Text size="sm" style={{ minWidth: 0 }} truncate>
        {question}
        {prompt.approvers.length > 0 && (
          <Text span size="xs" c="dimmed">
            {' '}
            (approved by {prompt.approvers.join(', ')}, waiting for others)
          </Text>
        )}
      </Text>
      {canDecide && !prompt.approvedHere && (
        <Group gap="xs" wrap="nowrap">
          <Button size="compact-xs" onClick={() => onDecide(prompt.requestId, true)}>
            Approve
          </Button>
          <Button
            size="compact-xs"
            variant="light"
            color="red"
            onClick={() => onDecide(prompt.requestId, false)}
          >
            Deny
          </Button>
        </Group>
      )}
    </Group>
  );
}
