import { appSortFields } from '@postern/contracts';
import type { ListOptions } from '../../components/resourceList/listFilters';
import { useResourceList, useUrlListFilters } from '../../components/resourceList/useResourceList';
import { appsPageSize, fetchApps, type AppListRequest } from './appsApi';
import type { AppFilters } from './makeApp';

export const appsQueryKey = (
  clusterId: string,
  request: AppListRequest,
  options: ListOptions = {},
) => ['apps', clusterId, request, options] as const;

/**
 * One page of the application list, with cursor paging over it. Changing the filters goes back
 * to page 1; while a page loads, the previous one stays on screen.
 */
export function useApps(clusterId: string, filters: AppFilters, options: ListOptions = {}) {
  return useResourceList(
    {
      queryKey: (request) => appsQueryKey(clusterId, request, options),
      fetchPage: (request, signal) => fetchApps(clusterId, request, signal, options),
      pageSize: appsPageSize,
    },
    filters,
  );
}

/** The list's filters kept in the page's URL (`?search=&query=&sort=`), so views can be shared. */
export function useUrlAppFilters(): [AppFilters, (filters: AppFilters) => void] {
  return useUrlListFilters(appSortFields);
}
