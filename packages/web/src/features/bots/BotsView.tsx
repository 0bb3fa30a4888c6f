import type { BotJson } from '@postern/contracts';
import { Button, Card, Code, Group, Stack, Text, Title } from '@mantine/core';
import type { Attempt } from '../../lib/attempt';
import { formatDateTime, parseTimestamp } from '../../lib/format';
import { RoleBadges } from '../../components/RoleBadges';
import { RowActions, type RowAction } from '../../components/RowActions';
import {
  ResourceList,
  type ListColumn,
  type ResourcePage,
} from '../../components/resourceList/ResourceList';
import type { ListFilters } from '../../components/resourceList/listFilters';
import type { ListPaging } from '../../components/resourceList/useResourceList';

export interface BotPermissions {
  create: boolean;
  edit: boolean;
  remove: boolean;
}

export interface BotsViewProps {
  attempt: Attempt<ResourcePage<BotJson>>;
  onRetry: () => void;
  paging: ListPaging;
  pageSize: number;
  busy?: boolean;
  /** The search; bots sort by name only, so no sort field. */
  filters: ListFilters<never>;
  onFiltersChange: (filters: ListFilters<never>) => void;
  can: BotPermissions;
  onCreate: () => void;
  onShow: (bot: BotJson) => void;
  onEdit: (bot: BotJson) => void;
  onNewToken: (bot: BotJson) => void;
  onDelete: (bot: BotJson) => void;
  /** Opens Create New Lock on the bot's user; absent when the user may not create locks. */
  onLock?: (bot: BotJson) => void;
}

/** When a bot was last heard from: its latest join or renewal, over its running copies. */
export function lastRenewal(bot: BotJson): Date | undefined {
  const times = bot.instances
    .map((instance) => parseTimestamp(instance.renewedAt)?.getTime())
    .filter((time): time is number => time !== undefined);
  return times.length > 0 ? new Date(Math.max(...times)) : undefined;
}

const columns: ListColumn<BotJson, never>[] = [
  {
    id: 'name',
    header: 'Name',
    cell: (bot) => (
      <Stack gap={0}>
        <Text size="sm" fw={600}>
          {bot.name}
        </Text>
        <Text size="xs" c="dimmed">
          acts as {bot.user}
        </Text>
      </Stack>
    ),
  },
  {
    id: 'roles',
    header: 'Roles',
    cell: (bot) => <RoleBadges roles={bot.roles} />,
  },
  {
    id: 'join',
    header: 'Joins with',
    visibleFrom: 'md',
    cell: (bot) => (
      <Text size="sm">
        {bot.joinMethod === 'oidc' ? 'CI ID token or join token' : 'join token'}
      </Text>
    ),
  },
  {
    id: 'instances',
    header: 'Running copies',
    cell: (bot) => {
      const last = lastRenewal(bot);
      return (
        <Stack gap={0}>
          <Text size="sm">{bot.instances.length}</Text>
          {last && (
            <Text size="xs" c="dimmed">
              last renewed {formatDateTime(last)}
            </Text>
          )}
        </Stack>
      );
    },
  },
  {
    id: 'tokens',
    header: 'Unused tokens',
    visibleFrom: 'sm',
    cell: (bot) => <Text size="sm">{bot.tokens.length}</Text>,
  },
];

/**
 * Manage Bots: the machine identities of the cluster (docs/bots.md), each with the user it acts
 * as, its roles, how its copies join, and the copies running now. Pure: the page brings the list,
 * the permissions and what each action opens.
 */
export function BotsView(props: BotsViewProps) {
  const { can, onCreate, onShow, onEdit, onNewToken, onDelete, onLock, ...list } = props;
  const actionsOf = (bot: BotJson): RowAction[] => [
    { label: 'Running copies and tokens', onClick: () => onShow(bot) },
    ...(can.create ? [{ label: 'New join token', onClick: () => onNewToken(bot) }] : []),
    ...(can.edit ? [{ label: 'Edit', onClick: () => onEdit(bot) }] : []),
    // A copy gone astray: lock the bot's user at once, then look (docs/bots.md).
    ...(onLock ? [{ label: 'Lock', onClick: () => onLock(bot) }] : []),
    ...(can.remove ? [{ label: 'Delete', color: 'red', onClick: () => onDelete(bot) }] : []),
  ];
  return (
    <ResourceList
      {...list}
      title="Manage Bots"
      itemsLabel="bots"
      columns={columns}
      rowKey={(bot) => bot.name}
      rowAction={(bot) => <RowActions actions={actionsOf(bot)} />}
      search={{ label: 'Search bots', placeholder: 'Search by name, role or login' }}
      noMatchText="No bots match the search."
      emptyState={<NoBots canCreate={can.create} onCreate={onCreate} />}
      headerActions={can.create && <Button onClick={onCreate}>Create Bot</Button>}
    />
  );
}

/** What a bot is for, and the two ways to make one, before there is any. */
function NoBots({ canCreate, onCreate }: { canCreate: boolean; onCreate: () => void }) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="sm">
        <Title order={3}>No bots yet</Title>
        <Text size="sm">
          A bot is an identity for a machine: a CI job that deploys over ssh, a backup script that
          reads a database, a service that calls kubectl. It holds a short-lived certificate it
          renews itself, never a person&apos;s login or a long-lived key.
        </Text>
        <Text size="sm">
          {canCreate ? 'Create one here, or on the Postern host:' : 'An admin creates one with:'}
        </Text>
        <Code block>postern bots add deployer --roles access --logins deploy</Code>
        {canCreate && (
          <Group>
            <Button onClick={onCreate}>Create Bot</Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}
