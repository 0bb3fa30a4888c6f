import type { ClusterAlert } from '@postern/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useClientConfig } from '../../app/clientConfig';
import { fetchClusterAlerts } from './alertsApi';
import { readDismissed, writeDismissed } from './dismissedAlerts';

/** How often the console looks for new alerts: a posted one shows within a minute. */
export const alertsPollMs = 60_000;

/** The alerts in force that this browser has not closed, and a way to close one. */
export function useClusterAlerts(): { alerts: ClusterAlert[]; dismiss(name: string): void } {
  const { proxyCluster } = useClientConfig();
  const [dismissed, setDismissed] = useState(readDismissed);
  const query = useQuery({
    queryKey: ['clusterAlerts', proxyCluster],
    queryFn: ({ signal }) => fetchClusterAlerts(proxyCluster, signal),
    refetchInterval: alertsPollMs,
  });
  const inForce = query.data ?? [];
  return {
    alerts: inForce.filter((alert) => !dismissed.includes(alert.metadata.name)),
    dismiss: (name) => {
      const next = [...dismissed, name];
      setDismissed(next);
      writeDismissed(
        next,
        inForce.map((alert) => alert.metadata.name),
      );
    },
  };
}
