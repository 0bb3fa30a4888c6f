import { activeSessionListSchema, apiPaths, type ActiveSessionJson } from '@postern/contracts';
import { api, decode } from '../../api';

/** `GET sites/{clusterId}/sessions` (spec §7): the live sessions the caller may see. */
export async function fetchActiveSessions(
  clusterId: string,
  signal?: AbortSignal,
): Promise<ActiveSessionJson[]> {
  const url = apiPaths.activeSessions(clusterId);
  return decode(activeSessionListSchema, await api.get(url, { signal }), url).sessions;
}
