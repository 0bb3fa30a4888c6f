import { desktopSortFields } from '@postern/contracts';
import { useQuery } from '@tanstack/react-query';
import type { ListOptions } from '../../components/resourceList/listFilters';
import { useResourceList, useUrlListFilters } from '../../components/resourceList/useResourceList';
import { attemptOf } from '../../lib/attempt';
import {
  desktopsPageSize,
  fetchDesktopActive,
  fetchDesktops,
  type DesktopListRequest,
} from './desktopsApi';
import { noFilters, type DesktopFilters } from './makeDesktop';

export const desktopsQueryKey = (
  clusterId: string,
  request: DesktopListRequest,
  options: ListOptions = {},
) => ['desktops', clusterId, request, options] as const;

/** One page of the desktop list, with cursor paging over it. */
export function useDesktops(clusterId: string, filters: DesktopFilters, options: ListOptions = {}) {
  return useResourceList(
    {
      queryKey: (request) => desktopsQueryKey(clusterId, request, options),
      fetchPage: (request, signal) => fetchDesktops(clusterId, request, signal, options),
      pageSize: desktopsPageSize,
    },
    filters,
  );
}

/**
 * The names of the first page of desktops by name, as suggestions (the Create New Lock form's
 * Desktop kind); asked only while `enabled`.
 */
export function useDesktopNames(clusterId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['desktops', clusterId, 'names'],
    queryFn: ({ signal }) =>
      fetchDesktops(
        clusterId,
        { ...noFilters, sort: { field: 'name', dir: 'asc' }, startKey: '' },
        signal,
      ),
    enabled,
    select: (page) => page.desktops.map((desktop) => desktop.name),
  });
}

/** The list's filters kept in the page's URL (`?search=&query=&sort=`). */
export function useUrlDesktopFilters(): [DesktopFilters, (filters: DesktopFilters) => void] {
  return useUrlListFilters(desktopSortFields);
}

/**
 * Whether a session is live on a desktop, asked only while `enabled` (its Connect menu is open)
 * and asked anew at each opening: the answer of a minute ago says little.
 */
export function useDesktopActive(clusterId: string, name: string, enabled: boolean) {
  const query = useQuery({
    queryKey: ['desktops', clusterId, name, 'active'],
    queryFn: ({ signal }) => fetchDesktopActive(clusterId, name, signal),
    enabled,
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
  return attemptOf(query);
}
