import { unifiedResourceSortFields } from '@postern/contracts';
import { useMemo } from 'react';
import { useResourceList, useUrlListFilters } from '../../components/resourceList/useResourceList';
import { kindsOf, kindsParam, withKinds, type ResourceFilters } from './makeResource';
import { fetchResources, resourcesPageSize, type ResourceListRequest } from './resourcesApi';

export const resourcesQueryKey = (clusterId: string, request: ResourceListRequest) =>
  ['unifiedResources', clusterId, request] as const;

/**
 * One page of the unified list, with cursor paging over it; new filters go back to page 1.
 * Nothing is asked until `enabled` (the user's preferences say which view to ask for).
 */
export function useResources(clusterId: string, filters: ResourceFilters, enabled = true) {
  return useResourceList(
    {
      queryKey: (request) => resourcesQueryKey(clusterId, request),
      fetchPage: (request, signal) => fetchResources(clusterId, request, signal),
      pageSize: resourcesPageSize,
      enabled,
    },
    filters,
  );
}

const urlParams = [kindsParam] as const;

/**
 * The list's filters kept in the page's URL (`?search=&query=&sort=&kinds=`). Kinds the contract
 * does not know are dropped, and the rest put in its order, before anything is asked.
 */
export function useUrlResourceFilters(): [ResourceFilters, (filters: ResourceFilters) => void] {
  const [raw, setFilters] = useUrlListFilters(unifiedResourceSortFields, urlParams);
  const filters = useMemo(() => withKinds(raw, kindsOf(raw)), [raw]);
  return [filters, setFilters];
}
