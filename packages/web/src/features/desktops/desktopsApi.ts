import {
  apiPaths,
  desktopActiveResponseSchema,
  desktopListResponseSchema,
  resourcePageSize,
} from '@postern/contracts';
import { api, decode } from '../../api';
import {
  listQueryString,
  type ListOptions,
  type ListPageRequest,
} from '../../components/resourceList/listFilters';
import { makeDesktop, type DesktopFilters, type DesktopPage } from './makeDesktop';

export const desktopsPageSize = resourcePageSize;

export type DesktopListRequest = ListPageRequest<DesktopFilters>;

/** One page of desktops, searched, filtered and sorted by the server. */
export async function fetchDesktops(
  clusterId: string,
  request: DesktopListRequest,
  signal?: AbortSignal,
  options: ListOptions = {},
): Promise<DesktopPage> {
  const query = listQueryString(request, desktopsPageSize, options);
  const url = `${apiPaths.desktops(clusterId)}?${query}`;
  const page = decode(desktopListResponseSchema, await api.get(url, { signal }), url);
  return {
    desktops: page.items.map(makeDesktop),
    startKey: page.startKey,
    totalCount: page.totalCount,
  };
}

/** Whether a session on the desktop is live now (`GET …/desktops/{name}/active`). */
export async function fetchDesktopActive(
  clusterId: string,
  name: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const url = apiPaths.desktopActive(clusterId, name);
  return decode(desktopActiveResponseSchema, await api.get(url, { signal }), url).active;
}
