import { Anchor, Button, Group, Stack, Title } from '@mantine/core';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import { AttemptView } from '../../components/AttemptView';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import type { Attempt } from '../../lib/attempt';
import type { Lock } from './makeLock';

interface Props {
  attempt: Attempt<Lock[]>;
  onRetry: () => void;
  can: { create: boolean; remove: boolean };
  onDelete: (lock: Lock) => void;
}

/** Manage Session & Identity Locks: who or what is locked, why, by whom and until when. */
export function LocksView({ attempt, onRetry, can, onDelete }: Props) {
  const columns: Column<Lock>[] = [
    { key: 'targetText', header: 'Target', sortable: true, render: (l) => <TargetCell lock={l} /> },
    { key: 'message', header: 'Message' },
    { key: 'createdBy', header: 'Created By', sortable: true, visibleFrom: 'sm' },
    {
      key: 'createdAtText',
      header: 'Created At',
      sortable: true,
      visibleFrom: 'sm',
      sortValue: (l) => l.createdAt?.getTime() ?? 0,
    },
    {
      key: 'expiresText',
      header: 'Expires',
      sortable: true,
      sortValue: (l) => l.expires?.getTime() ?? Number.MAX_SAFE_INTEGER,
    },
    ...(can.remove
      ? [
          {
            key: 'actions',
            header: 'Actions',
            fit: true,
            render: (l: Lock) => (
              <Button variant="subtle" color="red" size="compact-sm" onClick={() => onDelete(l)}>
                Delete
              </Button>
            ),
          },
        ]
      : []),
  ];
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>Manage Session & Identity Locks</Title>
        {can.create && (
          <Button component={Link} to={routePath('newLock')}>
            Create New Lock
          </Button>
        )}
      </Group>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(locks) => (
          <ResourceTable
            columns={columns}
            rows={locks}
            rowKey={(l) => l.id}
            emptyText="No locks in force."
          />
        )}
      </AttemptView>
    </Stack>
  );
}

/** The target as text; an access request's links to its page (who asked, for what, reviews). */
function TargetCell({ lock }: { lock: Lock }) {
  const [target] = lock.targets;
  if (lock.targets.length !== 1 || target?.kind !== 'access_request') return lock.targetText;
  return (
    <Anchor component={Link} to={routePath('accessRequest', { requestId: target.name })} size="sm">
      {lock.targetText}
    </Anchor>
  );
}
