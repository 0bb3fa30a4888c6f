import { Badge, Stack, Title } from '@mantine/core';
import { AttemptView } from '../../components/AttemptView';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import type { Attempt } from '../../lib/attempt';
import type { Cluster } from './makeCluster';

const columns: Column<Cluster>[] = [
  { key: 'clusterId', header: 'Name', sortable: true },
  {
    key: 'status',
    header: 'Status',
    sortable: true,
    render: (c) => (
      <Badge color={c.status === 'online' ? 'green' : 'gray'} variant="light">
        {c.status}
      </Badge>
    ),
  },
  { key: 'nodeCount', header: 'Nodes', sortable: true },
  { key: 'proxyVersion', header: 'Version', sortable: true },
  { key: 'publicURL', header: 'Public URL' },
  {
    key: 'connectedText',
    header: 'Last Connected',
    sortable: true,
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
