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
  /** The bot a running copy belongs to, when the user may list bots (its Lock link's way back). */
  botOfInstance?: (instanceId: string) => string | undefined;
}

/** Manage Session & Identity Locks: who or what is locked, why, by whom and until when. */
export function LocksView({ attempt, onRetry, can, onDelete, botOfInstance }: Props) {
  const columns: Column<Lock>[] = [
    {
      key: 'targetText',
      header: 'Target',
      sortable: true,
      render: (l) => <TargetCell lock={l} botOfInstance={botOfInstance} />,
    },
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

/**
 * The target as text; an access request's links to its page (who asked, for what, reviews), and
 * a bot instance's to its bot in Manage Bots while that copy is listed there.
 */
function TargetCell({
  lock,
  botOfInstance,
}: {
  lock: Lock;
  botOfInstance: Props['botOfInstance'];
}) {
  const [target] = lock.targets;
  if (lock.targets.length !== 1 || !target) return lock.targetText;
  const to = targetLink(target, botOfInstance);
  if (!to) return lock.targetText;
  return (
    <Anchor component={Link} to={to} size="sm">
      {lock.targetText}
    </Anchor>
  );
}

function targetLink(
  target: Lock['targets'][number],
  botOfInstance: Props['botOfInstance'],
): string | undefined {
  if (target.kind === 'access_request') {
    return routePath('accessRequest', { requestId: target.name });
  }
  const bot = target.kind === 'bot_instance' ? botOfInstance?.(target.name) : undefined;
  return bot ? `${routePath('bots')}?${new URLSearchParams({ search: bot })}` : undefined;
}
