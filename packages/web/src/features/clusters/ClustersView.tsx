import { Anchor, Badge, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { AttemptView } from '../../components/AttemptView';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import type { Attempt } from '../../lib/attempt';
import type { Cluster } from './makeCluster';

const columns: Column<Cluster>[] = [
  {
    key: 'clusterId',
    header: 'Name',
    sortable: true,
    // Opens the cluster's resources: a leaf's are reached through this (root) proxy.
    render: (c) => (
      <Anchor component={Link} to={c.url} size="sm">
        {c.clusterId}
      </Anchor>
    ),
  },
  {
    key: 'status',
    header: 'Status',
    sortable: true,
    fit: true,
    render: (c) => (
      <Badge color={c.status === 'online' ? 'green' : 'gray'} variant="light">
        {c.status}
      </Badge>
    ),
  },
  { key: 'nodeCount', header: 'Nodes', sortable: true, visibleFrom: 'sm' },
  { key: 'proxyVersion', header: 'Version', sortable: true, visibleFrom: 'sm' },
  {
    key: 'publicURL',
    header: 'Public URL',
    render: (c) =>
      c.publicHref ? (
        <Anchor
          href={c.publicHref}
          target="_blank"
          rel="noopener noreferrer"
          size="sm"
          style={{ overflowWrap: 'anywhere' }}
        >
          {c.publicURL}
        </Anchor>
      ) : (
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {c.publicURL}
        </Text>
      ),
  },
  {
    key: 'connectedText',
    header: 'Last Connected',
    sortable: true,
    visibleFrom: 'sm',
    sortValue: (c) => c.lastConnected?.getTime() ?? 0,
  },
];

interface Props {
  attempt: Attempt<Cluster[]>;
  onRetry: () => void;
}

/** Manage Clusters: a pure view of the cluster list. */
export function ClustersView({ attempt, onRetry }: Props) {
  return (
    <Stack gap="md">
      <Title order={2}>Manage Clusters</Title>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(clusters) => (
          <ResourceTable
            columns={columns}
            rows={clusters}
            rowKey={(c) => c.clusterId}
            emptyText="No clusters found."
          />
        )}
      </AttemptView>
    </Stack>
  );
}
