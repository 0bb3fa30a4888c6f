import { apiPaths, auditSearchResponseSchema, type AuditSearchResponse } from '@postern/contracts';
import { signedClient } from '../login/signed-client.js';

/** One audit search as `postern audit` asks it. */
export interface AuditPageRequest {
  from: Date;
  to: Date;
  order: 'asc' | 'desc';
  limit: number;
  types?: string[] | undefined;
  search?: string | undefined;
  startKey?: string | undefined;
}

export type AuditPages = (request: AuditPageRequest) => Promise<AuditSearchResponse>;

/** One read of the log in the order it was stored, as `postern audit export` asks it. */
export interface AuditStoredRequest {
  from?: Date;
  startKey?: string;
  limit: number;
  types?: string[] | undefined;
}

export type AuditStoredPages = (request: AuditStoredRequest) => Promise<AuditSearchResponse>;

/** What `postern audit` reads with: the search, and the export's stored-order read. */
export interface AuditReader {
  search: AuditPages;
  stored: AuditStoredPages;
}

/** The audit log's pages, each call signed with the current login's certificate. */
export async function auditClient(env: NodeJS.ProcessEnv): Promise<AuditReader> {
  const { get } = await signedClient(env);
  const search: AuditPages = (request) => {
    const query = new URLSearchParams({
      from: request.from.toISOString(),
      to: request.to.toISOString(),
      order: request.order,
      limit: String(request.limit),
    });
    if (request.types?.length) query.set('include', request.types.join(','));
    if (request.search) query.set('search', request.search);
    if (request.startKey) query.set('startKey', request.startKey);
    return get(`${apiPaths.cliEvents}?${query}`, auditSearchResponseSchema);
  };
  const stored: AuditStoredPages = (request) => {
    const query = new URLSearchParams({ limit: String(request.limit) });
    if (request.startKey) query.set('startKey', request.startKey);
    else if (request.from) query.set('from', request.from.toISOString());
    if (request.types?.length) query.set('include', request.types.join(','));
    return get(`${apiPaths.cliEventsExport}?${query}`, auditSearchResponseSchema);
  };
  return { search, stored };
}
