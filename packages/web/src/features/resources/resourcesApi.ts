import { apiPaths, resourcePageSize, unifiedResourcesResponseSchema } from '@postern/contracts';
import { api, decode } from '../../api';
import { listQueryString, type ListPageRequest } from '../../components/resourceList/listFilters';
import type { ResourcePage } from '../../components/resourceList/ResourceList';
import { makeResource, type Resource, type ResourceFilters } from './makeResource';

/** 15 a page, as every resource list (reference §1.5). */
export const resourcesPageSize = resourcePageSize;

export type ResourceListRequest = ListPageRequest<ResourceFilters>;

/**
 * One page of everything the user may reach (`GET sites/{clusterId}/resources`), of the kinds
 * asked for (`kinds`, all when none), searched, filtered and sorted by the server.
 */
export async function fetchResources(
  clusterId: string,
  request: ResourceListRequest,
  signal?: AbortSignal,
): Promise<ResourcePage<Resource>> {
  const url = `${apiPaths.unifiedResources(clusterId)}?${listQueryString(request, resourcesPageSize)}`;
  const page = decode(unifiedResourcesResponseSchema, await api.get(url, { signal }), url);
  return {
    items: page.items.map(makeResource),
    startKey: page.startKey,
    totalCount: page.totalCount,
  };
}
