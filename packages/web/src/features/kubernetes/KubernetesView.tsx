import { Stack, Text } from '@mantine/core';
import { defaultKubeClusterSort, type KubeClusterSortField } from '@postern/contracts';
import type { ReactNode } from 'react';
import {
  descriptionColumn,
  labelsColumn,
  nameColumn,
  ResourceList,
  type ListColumn,
  type ResourceListExtras,
} from '../../components/resourceList/ResourceList';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import { mapAttempt, type Attempt } from '../../lib/attempt';
import { AddKubeClusterHelp } from './AddKubeClusterHelp';
import { ConnectKube } from './ConnectKube';
import {
  kubeGroupsText,
  kubeUsersText,
  type KubeCluster,
  type KubeClusterFilters,
  type KubeClusterPage,
} from './makeKubeCluster';

interface Props extends ResourceListExtras<KubeCluster> {
  attempt: Attempt<KubeClusterPage>;
  onRetry: () => void;
  filters: KubeClusterFilters;
  onFiltersChange: (filters: KubeClusterFilters) => void;
  paging: ListPaging;
  pageSize: number;
  busy?: boolean;
  /** Exec in browser's picker for a cluster, shown in its Connect popover once that opens. */
  renderExec: (cluster: KubeCluster) => ReactNode;
  /** Set when the clusters listed are a trusted leaf's: the CLI reaches them with `--cluster`. */
  leaf?: string;
}

/** The Kubernetes list's columns (spec §3 Kube cluster: name, labels, users, groups). */
const kubeColumns: ListColumn<KubeCluster, KubeClusterSortField>[] = [
  nameColumn<KubeCluster, KubeClusterSortField>(
    'name',
    (cluster) => cluster.name,
    (cluster) => cluster.status,
  ),
  descriptionColumn<KubeCluster, KubeClusterSortField>(
    'description',
    (cluster) => cluster.description,
  ),
  {
    id: 'access',
    header: 'Users and groups',
    visibleFrom: 'md',
    cell: (cluster) => (
      <Stack gap={0}>
        <Text size="xs">Users: {kubeUsersText(cluster.users)}</Text>
        <Text size="xs">Groups: {kubeGroupsText(cluster.groups)}</Text>
      </Stack>
    ),
  },
  labelsColumn((cluster: KubeCluster) => cluster.labels, { visibleFrom: 'sm' }),
];

/** Kubernetes clusters: search, label filters and sort on the server, paged 15 at a time. */
export function KubernetesView(props: Props) {
  const { attempt, renderExec, leaf, ...list } = props;
  return (
    <ResourceList
      {...list}
      title="Kubernetes"
      itemsLabel="Kubernetes clusters"
      columns={kubeColumns}
      rowKey={(cluster) => cluster.name}
      attempt={mapAttempt(attempt, (page) => ({ ...page, items: page.clusters }))}
      defaultSort={defaultKubeClusterSort}
      search={{
        label: 'Search Kubernetes clusters',
        placeholder: 'Search by name, description or label',
      }}
      noMatchText="No Kubernetes clusters match your search."
      emptyState={<AddKubeClusterHelp />}
      rowAction={(cluster) => (
        <ConnectKube cluster={cluster} exec={renderExec(cluster)} leaf={leaf} />
      )}
    />
  );
}
