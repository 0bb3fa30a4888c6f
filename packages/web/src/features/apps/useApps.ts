import { appSortFields } from '@postern/contracts';
import { useResourceList, useUrlListFilters } from '../../components/resourceList/useResourceList';
import { appsPageSize, fetchApps, type AppListRequest } from './appsApi';
import type { AppFilters } from './makeApp';

export const appsQueryKey = (clusterId: string, request: AppListRequest) =>
  ['apps', clusterId, request] as const;

/**
 * One page of the application list, with cursor paging over it. Changing the filters goes back
 * to page 1; while a page loads, the previous one stays on screen.
 */
export function useApps(clusterId: string, filters: AppFilters) {
  return useResourceList(
    {
      queryKey: (request) => appsQueryKey(clusterId, request),
      fetchPage: (request, signal) => fetchApps(clusterId, request, signal),
      pageSize: appsPageSize,
    },
    filters,
  );
}

/** The list's filters kept in the page's URL (`?search=&query=&sort=`), so views can be shared. */
export function useUrlAppFilters(): [AppFilters, (filters: AppFilters) => void] {
  return useUrlListFilters(appSortFields);
}
