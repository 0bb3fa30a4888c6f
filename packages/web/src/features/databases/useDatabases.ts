import { databaseSortFields } from '@postern/contracts';
import { useResourceList, useUrlListFilters } from '../../components/resourceList/useResourceList';
import { databasesPageSize, fetchDatabases, type DatabaseListRequest } from './databasesApi';
import type { DatabaseFilters } from './makeDatabase';

export const databasesQueryKey = (clusterId: string, request: DatabaseListRequest) =>
  ['databases', clusterId, request] as const;

/** One page of the database list, with cursor paging over it. */
export function useDatabases(clusterId: string, filters: DatabaseFilters) {
  return useResourceList(
    {
      queryKey: (request) => databasesQueryKey(clusterId, request),
      fetchPage: (request, signal) => fetchDatabases(clusterId, request, signal),
      pageSize: databasesPageSize,
    },
    filters,
  );
}

/** The list's filters kept in the page's URL (`?search=&query=&sort=`). */
export function useUrlDatabaseFilters(): [DatabaseFilters, (filters: DatabaseFilters) => void] {
  return useUrlListFilters(databaseSortFields);
}
