import { apiPaths, auditFetchLimit, sessionEventsResponseSchema } from '@postern/contracts';
import type { SessionEventsResponse } from '@postern/contracts';
import { api, decode } from '../../api';

export interface RecordingsPageQuery {
  from: Date;
  to: Date;
  /** Matched by the server against each session end event (host, participants, sid…). */
  search: string;
  startKey: string;
}

/**
 * `GET sites/{clusterId}/events/search/sessions` (spec §7): one page of up to 5000 session end
 * events (spec §9), each of them one recording row.
 */
export async function fetchRecordingsPage(
  clusterId: string,
  query: RecordingsPageQuery,
  signal?: AbortSignal,
): Promise<SessionEventsResponse> {
  const params = new URLSearchParams({
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    limit: String(auditFetchLimit),
  });
  if (query.search.trim()) params.set('search', query.search.trim());
  if (query.startKey) params.set('startKey', query.startKey);
  const url = `${apiPaths.eventsSearchSessions(clusterId)}?${params}`;
  return decode(sessionEventsResponseSchema, await api.get(url, { signal }), url);
}
