import { apiPaths, nodeListResponseSchema, nodesPageSize } from '@postern/contracts';
import { api, decode } from '../../api';
import {
  listQueryString,
  type ListOptions,
  type ListPageRequest,
} from '../../components/resourceList/listFilters';
import { makeNode, type NodeFilters, type NodePage } from './makeNode';

/** The console asks for 15 servers a page (reference §1.5); a request with no limit gets as many. */
export { nodesPageSize };

export type NodeListRequest = ListPageRequest<NodeFilters>;

/** The query string of `GET sites/{clusterId}/nodes` (empty values left out). */
export function nodeListQuery(request: NodeListRequest, options: ListOptions = {}): string {
  return listQueryString(request, nodesPageSize, options);
}

/** One page of servers, searched, filtered and sorted by the server. */
export async function fetchNodes(
  clusterId: string,
  request: NodeListRequest,
  signal?: AbortSignal,
  options: ListOptions = {},
): Promise<NodePage> {
  const url = `${apiPaths.nodes(clusterId)}?${nodeListQuery(request, options)}`;
  const page = decode(nodeListResponseSchema, await api.get(url, { signal }), url);
  return { nodes: page.items.map(makeNode), startKey: page.startKey, totalCount: page.totalCount };
}
