import { nodeSortFields } from '@postern/contracts';
import { useResourceList, useUrlListFilters } from '../../components/resourceList/useResourceList';
import type { NodeFilters } from './makeNode';
import type { ListOptions } from '../../components/resourceList/listFilters';
import { fetchNodes, nodesPageSize, type NodeListRequest } from './nodesApi';

export const nodesQueryKey = (
  clusterId: string,
  request: NodeListRequest,
  options: ListOptions = {},
) => ['nodes', clusterId, request, options] as const;

/**
 * One page of the server list, with cursor paging over it. Changing the filters goes back to
 * page 1; while a page loads, the previous one stays on screen.
 */
export function useNodes(clusterId: string, filters: NodeFilters, options: ListOptions = {}) {
  // What every list of servers (the Servers page, the console's Servers tab) hands its view.
  return useResourceList(
    {
      queryKey: (request) => nodesQueryKey(clusterId, request, options),
      fetchPage: (request, signal) => fetchNodes(clusterId, request, signal, options),
      pageSize: nodesPageSize,
    },
    filters,
  );
}

/** The list's filters kept in the page's URL (`?search=&query=&sort=`), so views can be shared. */
export function useUrlNodeFilters(): [NodeFilters, (filters: NodeFilters) => void] {
  return useUrlListFilters(nodeSortFields);
}
