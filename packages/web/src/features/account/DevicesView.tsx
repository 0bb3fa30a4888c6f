import { Badge, Button, Group, Stack, Text, Title, VisuallyHidden } from '@mantine/core';
import { AttemptView } from '../../components/AttemptView';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import type { Attempt } from '../../lib/attempt';
import type { Device } from './makeDevice';

interface Props {
  attempt: Attempt<Device[]>;
  onRetry: () => void;
  onAdd: () => void;
  onRemove: (device: Device) => void;
}

function columns(onRemove: (device: Device) => void): Column<Device>[] {
  return [
    {
      key: 'name',
      header: 'Name',
      sortable: true,
      render: (d) => (
        <Group gap="xs" wrap="nowrap">
          <Text size="sm">{d.name}</Text>
          {d.passkey && (
            <Badge size="sm" variant="light">
              passkey
            </Badge>
          )}
        </Group>
      ),
    },
    { key: 'description', header: 'Description', sortable: true },
    {
      key: 'registeredDate',
      header: 'Registered',
      sortable: true,
      sortValue: (d) => d.addedAt,
    },
    {
      key: 'lastUsedDate',
      header: 'Last used',
      sortable: true,
      render: (d) => d.lastUsedDate || 'Never',
    },
    {
      key: 'actions',
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      render: (d) => (
        <Button
          size="xs"
          variant="subtle"
          color="red"
          aria-label={`Remove ${d.name}`}
          onClick={() => onRemove(d)}
        >
          Remove
        </Button>
      ),
    },
  ];
}

/** The user's second-factor devices (spec §3), with add and remove. */
export function DevicesView({ attempt, onRetry, onAdd, onRemove }: Props) {
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={3}>Two-factor devices</Title>
        <Button onClick={onAdd} disabled={attempt.status !== 'success'}>
          Add two-factor device
        </Button>
      </Group>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(devices) => (
          <ResourceTable
            columns={columns(onRemove)}
            rows={devices}
            rowKey={(d) => d.id}
            emptyText="No two-factor devices yet."
          />
        )}
      </AttemptView>
    </Stack>
  );
}
