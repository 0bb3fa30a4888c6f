import { apiPaths, nodeListResponseSchema, nodesPageSize } from '@postern/contracts';
import { api, decode } from '../../api';
import { listQueryString, type ListPageRequest } from '../../components/resourceList/listFilters';
import { makeNode, type NodeFilters, type NodePage } from './makeNode';

/** The console asks for 15 servers a page (reference §1.5); a request with no limit gets as many. */
export { nodesPageSize };

export type NodeListRequest = ListPageRequest<NodeFilters>;

/** The query string of `GET sites/{clusterId}/nodes` (empty values left out). */
export function nodeListQuery(request: NodeListRequest): string {
  return listQueryString(request, nodesPageSize);
}

export interface NodeListOptions {
  /** List as the user's `search_as_roles` would see them (for building a resource request). */
  searchAsRoles?: boolean;
}

/** One page of servers, searched, filtered and sorted by the server. */
export async function fetchNodes(
  clusterId: string,
  request: NodeListRequest,
  signal?: AbortSignal,
  options: NodeListOptions = {},
): Promise<NodePage> {
  const query = nodeListQuery(request) + (options.searchAsRoles ? '&searchAsRoles=yes' : '');
  const url = `${apiPaths.nodes(clusterId)}?${query}`;
  const page = decode(nodeListResponseSchema, await api.get(url, { signal }), url);
  return { nodes: page.items.map(makeNode), startKey: page.startKey, totalCount: page.totalCount };
}
