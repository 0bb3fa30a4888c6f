import { Box, Button, Group, Progress, Text } from '@mantine/core';
import { PaneStrip } from './PaneStrip';
import { percentOf, type Transfer } from './transferStore';

interface Props {
  transfers: Transfer[];
  onCancel: (id: string) => void;
  onDismiss: (id: string) => void;
}

const statusText: Record<Transfer['status'], string> = {
  running: '',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The tab's file transfers: one row each, with progress, and cancel or dismiss. */
export function TransferPanel({ transfers, onCancel, onDismiss }: Props) {
  if (transfers.length === 0) return null;
  return (
    <PaneStrip label="File transfers" style={{ maxHeight: 180, overflowY: 'auto' }}>
      {transfers.map((transfer) => (
        <TransferRow
          key={transfer.id}
          transfer={transfer}
          onCancel={onCancel}
          onDismiss={onDismiss}
        />
      ))}
    </PaneStrip>
  );
}

function TransferRow({
  transfer,
  onCancel,
  onDismiss,
}: { transfer: Transfer } & Omit<Props, 'transfers'>) {
  const percent = percentOf(transfer);
  const running = transfer.status === 'running';
  const verb = transfer.direction === 'upload' ? 'Upload' : 'Download';
  const where =
    transfer.direction === 'upload' ? `to ${transfer.remotePath}` : `from ${transfer.remotePath}`;
  return (
    <Box component="li" aria-label={`${verb} ${transfer.name}`}>
      <Group gap="xs" wrap="nowrap" justify="space-between">
        <Text size="sm" truncate style={{ minWidth: 0 }}>
          {verb} <b>{transfer.name}</b>{' '}
          <Text span size="xs" c="dimmed">
            {where}
          </Text>
        </Text>
        <Group gap="xs" wrap="nowrap">
          <Text size="xs" c={transfer.status === 'failed' ? 'red' : 'dimmed'} role="status">
            {running
              ? (transfer.waitingFor ??
                (percent === undefined ? formatBytes(transfer.loaded) : `${percent}%`))
              : statusText[transfer.status]}
          </Text>
          {running ? (
            <Button size="compact-xs" variant="subtle" onClick={() => onCancel(transfer.id)}>
              Cancel
            </Button>
          ) : (
            <Button
              size="compact-xs"
              variant="subtle"
              color="gray"
              onClick={() => onDismiss(transfer.id)}
            >
              Dismiss
            </Button>
          )}
        </Group>
      </Group>
      <Progress
        aria-label={`${verb} ${transfer.name} progress`}
        value={percent ?? 100}
        striped={running && percent === undefined}
        animated={running && percent === undefined}
        color={
          transfer.status === 'failed'
            ? 'red'
            : transfer.status === 'cancelled'
              ? 'gray'
              : undefined
        }
        size="sm"
        mt={2}
      />
      {transfer.status === 'failed' && (
        <Text size="xs" c="red" role="alert">
          {transfer.error}
        </Text>
      )}
    </Box>
  );
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
