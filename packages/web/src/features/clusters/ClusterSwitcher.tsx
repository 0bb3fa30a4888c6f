import { Badge, Select } from '@mantine/core';
import { useLocation } from 'react-router';
import { useAppNavigation } from '../../app/useAppNavigation';
import { useClusters } from './useClusters';

/**
 * The same page of another cluster: `/web/cluster/<from>/<page>/…` becomes
 * `/web/cluster/<to>/<page>` (a list page; what lies deeper names things of the first cluster).
 */
export function switchedClusterPath(pathname: string, from: string, to: string): string {
  const prefix = `/web/cluster/${encodeURIComponent(from)}/`;
  const target = `/web/cluster/${encodeURIComponent(to)}/`;
  if (!pathname.startsWith(prefix)) return target;
  const page = pathname.slice(prefix.length).split('/')[0] ?? '';
  return target + page;
}

/**
 * The cluster of a cluster-scoped page. With leaf clusters (trusted clusters) it is a picker that
 * opens the same page there, whose calls the root forwards to the leaf; alone, just its name.
 */
export function ClusterSwitcher({ clusterId }: { clusterId: string }) {
  const clusters = useClusters();
  const { pathname } = useLocation();
  const navigation = useAppNavigation();
  const names = clusters.data?.map((cluster) => cluster.clusterId) ?? [];
  if (names.length < 2 || !names.includes(clusterId)) {
    return <Badge variant="light">{clusterId}</Badge>;
  }
  return (
    <Select
      size="xs"
      w={180}
      aria-label="Cluster"
      data={names}
      value={clusterId}
      allowDeselect={false}
      searchable={names.length > 8}
      onChange={(next) => {
        if (next && next !== clusterId) {
          navigation.push(switchedClusterPath(pathname, clusterId, next));
        }
      }}
    />
  );
}
