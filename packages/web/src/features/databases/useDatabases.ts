import { databaseSortFields } from '@postern/contracts';
import type { ListOptions } from '../../components/resourceList/listFilters';
import { useResourceList, useUrlListFilters } from '../../components/resourceList/useResourceList';
import { databasesPageSize, fetchDatabases, type DatabaseListRequest } from './databasesApi';
import type { DatabaseFilters } from './makeDatabase';

export const databasesQueryKey = (
  clusterId: string,
  request: DatabaseListRequest,
  options: ListOptions = {},
) => ['databases', clusterId, request, options] as const;

/** One page of the database list, with cursor paging over it. */
export function useDatabases(
  clusterId: string,
  filters: DatabaseFilters,
  options: ListOptions = {},
) {
  return useResourceList(
    {
      queryKey: (request) => databasesQueryKey(clusterId, request, options),
      fetchPage: (request, signal) => fetchDatabases(clusterId, request, signal, options),
      pageSize: databasesPageSize,
    },
    filters,
  );
}

/** The list's filters kept in the page's URL (`?search=&query=&sort=`). */
export function useUrlDatabaseFilters(): [DatabaseFilters, (filters: DatabaseFilters) => void] {
  return useUrlListFilters(databaseSortFields);
}
