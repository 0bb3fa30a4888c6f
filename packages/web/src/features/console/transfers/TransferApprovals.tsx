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
  /**
   * This tab may withdraw the viewer's own requests made from another tab: the server takes a
   * withdrawal from the owner's peer connections only.
   */
  canWithdraw?: boolean;
}

/**
 * A moderated session's file transfer requests, for its moderators and other peers to approve
 * or deny (docs/file-transfer.md, "Moderated sessions"). One row per request, oldest first.
 */
export function TransferApprovals({
  prompts,
  onDecide,
  canDecide = true,
  canWithdraw = false,
}: Props) {
  if (prompts.length === 0) return null;
  // A multi-file upload asks for each file: one click answers them all.
  const undecided = canDecide ? prompts.filter((p) => !p.approvedHere && !p.own) : [];
  return (
    <PaneStrip
      label="File transfer requests"
      style={{
        background: 'var(--mantine-color-yellow-light)',
        maxHeight: 180,
        overflowY: 'auto',
      }}
    >
      {undecided.length > 1 && (
        <Group component="li" aria-label="All requests" gap="xs" justify="space-between">
          <Text size="sm">{undecided.length} requests wait for your decision</Text>
          <Button
            size="compact-xs"
            variant="outline"
            onClick={() => undecided.forEach((p) => onDecide(p.requestId, true))}
          >
            Approve all
          </Button>
        </Group>
      )}
      {prompts.map((prompt) =>
        prompt.own ? (
          <OwnRequestRow
            key={prompt.requestId}
            prompt={prompt}
            onWithdraw={canWithdraw ? () => onDecide(prompt.requestId, false) : undefined}
          />
        ) : (
          <ApprovalRow
            key={prompt.requestId}
            prompt={prompt}
            onDecide={onDecide}
            canDecide={canDecide}
          />
        ),
      )}
    </PaneStrip>
  );
}

/** The viewer's own request from another tab: it waits for the others, and may be withdrawn. */
function OwnRequestRow({
  prompt,
  onWithdraw,
}: {
  prompt: TransferPrompt;
  onWithdraw: (() => void) | undefined;
}) {
  const text = `You asked to ${describeAsk(prompt)} from another tab`;
  return (
    <Group component="li" aria-label={text} gap="xs" wrap="nowrap" justify="space-between">
      <Text size="sm" style={{ minWidth: 0 }} truncate>
        {text}
        <Text span size="xs" c="dimmed">
          {' '}
          (waiting for a moderator
          {prompt.approvers.length > 0 ? `; approved by ${prompt.approvers.join(', ')}` : ''})
        </Text>
      </Text>
      {onWithdraw && (
        <Button size="compact-xs" variant="light" color="gray" onClick={onWithdraw}>
          Withdraw
        </Button>
      )}
    </Group>
  );
}

function ApprovalRow({
  prompt,
  onDecide,
  canDecide,
}: { prompt: TransferPrompt } & Required<Pick<Props, 'onDecide' | 'canDecide'>>) {
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
