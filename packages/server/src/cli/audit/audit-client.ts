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

/** The audit log's pages, each call signed with the current login's certificate. */
export async function auditClient(env: NodeJS.ProcessEnv): Promise<AuditPages> {
  const { get } = await signedClient(env);
  return (request) => {
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
}
