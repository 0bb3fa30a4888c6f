import { apiPaths, clusterAlertsResponseSchema, type ClusterAlert } from '@postern/contracts';
import { api, decode } from '../../api';

/** `GET /sites/{clusterId}/alerts`: what admins posted to everyone (`postern alerts create`). */
export async function fetchClusterAlerts(
  clusterId: string,
  signal?: AbortSignal,
): Promise<ClusterAlert[]> {
  const url = apiPaths.clusterAlerts(clusterId);
  return decode(clusterAlertsResponseSchema, await api.get(url, { signal }), url).alerts;
}
