import {
  unifiedResourceId,
  unifiedResourceName,
  type UnifiedResource,
  type UnifiedResourcesResponse,
  type unifiedResourcesQuerySchema,
} from '@postern/contracts';
import type { z } from 'zod';
import type { UserAcl } from '@postern/contracts';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { badParameter } from '../../errors.js';
import type {
  ResourceFilter,
  ResourceLister,
  ResourceListers,
} from '../../http/resource-listers.js';

type UnifiedQuery = z.output<typeof unifiedResourcesQuerySchema>;

/** Who asks: what their ACL lets them list, and the roles each list filters with. */
export interface UnifiedViewer {
  acl: UserAcl;
  roleSet: RoleSet;
  /**
   * Their search-as roles, when the query includes requestable resources: what those roles see
   * beyond what `roleSet` sees is listed with `requiresRequest`.
   */
  searchAs?: RoleSet;
  /** With `pinnedOnly`: the ids the viewer pinned on this cluster. */
  pinned?: ReadonlySet<string>;
}

/**
 * Unified resources: every wing's own list (its RBAC filter, search and label clauses) for the
 * kinds the viewer may list, merged, sorted by name (or kind, then name) and paged. Each wing
 * holds its inventory in memory, so the merge reads no storage; the page key is the offset.
 */
export function unifiedPage(
  listers: ResourceListers,
  viewer: UnifiedViewer,
  query: UnifiedQuery,
  clusterId: string,
): UnifiedResourcesResponse {
  const offset = offsetOf(query.startKey);
  const filter = { search: query.search, query: query.query };
  let items = listers
    .readable(viewer.acl, query.kinds)
    .flatMap((lister) => kindItems(lister, filter, viewer, query, clusterId));
  if (query.pinnedOnly === 'true') {
    const pinned = viewer.pinned ?? new Set<string>();
    items = items.filter((item) => pinned.has(unifiedResourceId(item)));
  }
  items.sort(comparator(query.sort ?? { field: 'name', dir: 'asc' }));
  const page = items.slice(offset, offset + query.limit);
  const next = offset + page.length;
  return {
    items: page,
    startKey: next < items.length ? String(next) : '',
    totalCount: items.length,
  };
}

/**
 * One kind's items in the included mode: what the viewer's roles reach, what only their
 * search-as roles would (marked `requiresRequest`), or both.
 */
function kindItems(
  lister: ResourceLister,
  filter: ResourceFilter,
  viewer: UnifiedViewer,
  query: UnifiedQuery,
  clusterId: string,
): UnifiedResource[] {
  const withKind = (json: object) => ({ ...json, kind: lister.kind }) as UnifiedResource;
  const reachable = lister.all(filter, viewer.roleSet, clusterId).map(withKind);
  const mode = query.includedResourceMode;
  if (mode === 'accessible' || !viewer.searchAs) return mode === 'requestable' ? [] : reachable;
  const reached = new Set(reachable.map(unifiedResourceId));
  const requestable = lister
    .all(filter, viewer.searchAs, clusterId)
    .map(withKind)
    .filter((item) => !reached.has(unifiedResourceId(item)))
    .map((item) => ({ ...item, requiresRequest: true }));
  return mode === 'requestable' ? requestable : [...reachable, ...requestable];
}

function offsetOf(startKey: string): number {
  if (!startKey) return 0;
  if (!/^\d{1,9}$/.test(startKey)) throw badParameter('startKey: not a key this list gave');
  return Number(startKey);
}

const byName = (a: UnifiedResource, b: UnifiedResource) =>
  unifiedResourceName(a).localeCompare(unifiedResourceName(b), 'en', { sensitivity: 'base' }) ||
  a.kind.localeCompare(b.kind);

function comparator(sort: { field: 'name' | 'kind'; dir: 'asc' | 'desc' }) {
  const sign = sort.dir === 'desc' ? -1 : 1;
  if (sort.field === 'name') return (a: UnifiedResource, b: UnifiedResource) => sign * byName(a, b);
  return (a: UnifiedResource, b: UnifiedResource) =>
    sign * a.kind.localeCompare(b.kind) || byName(a, b);
}
