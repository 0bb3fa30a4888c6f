import { apiPaths, auditFetchLimit, auditSearchResponseSchema } from '@postern/contracts';
import type { AuditSearchResponse } from '@postern/contracts';
import { api, decode } from '../../api';

export interface AuditPageQuery {
  from: Date;
  to: Date;
  types: string[];
  search: string;
  startKey: string;
}

/** `GET sites/{clusterId}/events/search` (spec §7): one page of up to 5000 events (spec §9). */
export async function fetchAuditPage(
  clusterId: string,
  query: AuditPageQuery,
  signal?: AbortSignal,
): Promise<AuditSearchResponse> {
  const params = new URLSearchParams({
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    limit: String(auditFetchLimit),
  });
  if (query.types.length > 0) params.set('include', query.types.join(','));
  if (query.search.trim()) params.set('search', query.search.trim());
  if (query.startKey) params.set('startKey', query.startKey);
  const url = `${apiPaths.eventsSearch(clusterId)}?${params}`;
  return decode(auditSearchResponseSchema, await api.get(url, { signal }), url);
}
