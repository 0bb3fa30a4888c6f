import { internalResourceIdLabel, type JoinTokenListItem } from '@postern/contracts';
import { Button, Card, Code, Group, Stack, Text, Title } from '@mantine/core';
import { AttemptView } from '../../components/AttemptView';
import { LabelChips } from '../../components/LabelChips';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import { RoleBadges } from '../../components/RoleBadges';
import type { Attempt } from '../../lib/attempt';
import { formatDateTime, parseTimestamp } from '../../lib/format';
import { expiresText } from './joinTokenForm';

export interface JoinTokenPermissions {
  create: boolean;
  remove: boolean;
}

export interface JoinTokensViewProps {
  attempt: Attempt<JoinTokenListItem[]>;
  onRetry: () => void;
  can: JoinTokenPermissions;
  /** The time the Expires column counts from (ms). */
  now: number;
  onCreate: () => void;
  onDelete: (token: JoinTokenListItem) => void;
}

/** The labels a joining host gets; the resource id the server adds is the server's business. */
const shownLabels = (token: JoinTokenListItem) =>
  token.suggestedLabels.filter((label) => label.name !== internalResourceIdLabel);

const expiryTime = (token: JoinTokenListItem) =>
  parseTimestamp(token.expiry)?.getTime() ?? Number.MAX_SAFE_INTEGER;

/**
 * Join Tokens: the live tokens anyone holding one can join a host to the cluster with. Never the
 * secret (the server keeps only its hash): the id names a token, its last characters let its
 * holder tell which it is. Pure: the page brings the list, the permissions and the actions.
 */
export function JoinTokensView({
  attempt,
  onRetry,
  can,
  now,
  onCreate,
  onDelete,
}: JoinTokensViewProps) {
  const columns: Column<JoinTokenListItem>[] = [
    {
      key: 'id',
      header: 'ID',
      sortable: true,
      render: (token) => (
        <Text size="sm" ff="monospace">
          {token.id}
        </Text>
      ),
    },
    {
      key: 'safeName',
      header: 'Token',
      visibleFrom: 'sm',
      render: (token) => (
        <Text size="sm" ff="monospace" c="dimmed">
          {token.safeName}
        </Text>
      ),
    },
    { key: 'roles', header: 'Roles', render: (token) => <RoleBadges roles={token.roles} /> },
    {
      key: 'labels',
      header: 'Labels',
      visibleFrom: 'md',
      render: (token) => <LabelChips labels={shownLabels(token)} />,
    },
    {
      key: 'createdBy',
      header: 'Created by',
      sortable: true,
      visibleFrom: 'sm',
      render: (token) => <CreatedBy token={token} />,
    },
    {
      key: 'expiry',
      header: 'Expires',
      sortable: true,
      sortValue: expiryTime,
      render: (token) => <Expiry token={token} now={now} />,
    },
    ...(can.remove
      ? [
          {
            key: 'actions',
            header: 'Actions',
            fit: true,
            render: (token: JoinTokenListItem) => (
              <Button
                variant="subtle"
                color="red"
                size="compact-sm"
                aria-label={`Delete join token ${token.id}`}
                onClick={() => onDelete(token)}
              >
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
        <Title order={2}>Join Tokens</Title>
        {can.create && <Button onClick={onCreate}>Create Join Token</Button>}
      </Group>
      <Text size="sm" c="dimmed">
        Anyone holding a live join token can join a server or an agent to the cluster until it
        expires. The secret is shown once, when the token is created; delete a token that is no
        longer needed.
      </Text>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(tokens) =>
          tokens.length === 0 ? (
            <NoTokens canCreate={can.create} onCreate={onCreate} />
          ) : (
            <ResourceTable
              label="Join tokens"
              columns={columns}
              rows={tokens}
              rowKey={(token) => token.id}
            />
          )
        }
      </AttemptView>
    </Stack>
  );
}

function CreatedBy({ token }: { token: JoinTokenListItem }) {
  const created = parseTimestamp(token.createdAt);
  return (
    <Stack gap={0}>
      <Text size="sm">{token.createdBy}</Text>
      {created && (
        <Text size="xs" c="dimmed">
          {formatDateTime(created)}
        </Text>
      )}
    </Stack>
  );
}

/** "in 25 minutes", the exact time in its title. */
function Expiry({ token, now }: { token: JoinTokenListItem; now: number }) {
  const expiry = parseTimestamp(token.expiry);
  if (token.isStatic || !expiry) {
    return (
      <Text size="sm" c="dimmed">
        never
      </Text>
    );
  }
  const text = expiresText(expiry, now);
  return (
    <Text size="sm" title={formatDateTime(expiry)} c={text === 'expired' ? 'red' : undefined}>
      {text}
    </Text>
  );
}

function NoTokens({ canCreate, onCreate }: { canCreate: boolean; onCreate: () => void }) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="sm">
        <Title order={3}>No live join tokens</Title>
        <Text size="sm">
          A join token lets a host join the cluster: a server with the Postern agent, an OpenSSH
          host, or an agent serving apps, databases, Kubernetes clusters or desktops.
          {canCreate ? ' Create one here, or on the Postern host:' : ' An admin creates one with:'}
        </Text>
        <Code block>postern tokens add --type node --ttl 30m</Code>
        {canCreate && (
          <Group>
            <Button onClick={onCreate}>Create Join Token</Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}
