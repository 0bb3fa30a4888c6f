import { apiPaths, databaseListResponseSchema, resourcePageSize } from '@postern/contracts';
import { api, decode } from '../../api';
import {
  listQueryString,
  type ListOptions,
  type ListPageRequest,
} from '../../components/resourceList/listFilters';
import { makeDatabase, type DatabaseFilters, type DatabasePage } from './makeDatabase';

export const databasesPageSize = resourcePageSize;

export type DatabaseListRequest = ListPageRequest<DatabaseFilters>;

/** One page of databases, searched, filtered and sorted by the server. */
export async function fetchDatabases(
  clusterId: string,
  request: DatabaseListRequest,
  signal?: AbortSignal,
  options: ListOptions = {},
): Promise<DatabasePage> {
  const query = listQueryString(request, databasesPageSize, options);
  const url = `${apiPaths.databases(clusterId)}?${query}`;
  const page = decode(databaseListResponseSchema, await api.get(url, { signal }), url);
  return {
    databases: page.items.map(makeDatabase),
    startKey: page.startKey,
    totalCount: page.totalCount,
  };
}
