import { apiPaths, nodeListResponseSchema, nodesPageSize } from '@postern/contracts';
import { api, decode } from '../../api';
import { makeNode, sortParam, type NodeFilters, type NodePage } from './makeNode';

/** The console asks for 15 servers a page (reference §1.5); a request with no limit gets as many. */
export { nodesPageSize };

export interface NodeListRequest extends NodeFilters {
  startKey: string;
  limit?: number;
}

/** The query string of `GET sites/{clusterId}/nodes` (empty values left out). */
export function nodeListQuery(request: NodeListRequest): string {
  const params = new URLSearchParams({ limit: String(request.limit ?? nodesPageSize) });
  if (request.startKey) params.set('startKey', request.startKey);
  if (request.search.trim()) params.set('search', request.search.trim());
  if (request.query.trim()) params.set('query', request.query.trim());
  const sort = sortParam(request.sort);
  if (sort) params.set('sort', sort);
  return params.toString();
}

/** One page of servers, searched, filtered and sorted by the server. */
export async function fetchNodes(
  clusterId: string,
  request: NodeListRequest,
  signal?: AbortSignal,
): Promise<NodePage> {
  const url = `${apiPaths.nodes(clusterId)}?${nodeListQuery(request)}`;
  const page = decode(nodeListResponseSchema, await api.get(url, { signal }), url);
  return { nodes: page.items.map(makeNode), startKey: page.startKey, totalCount: page.totalCount };
}
