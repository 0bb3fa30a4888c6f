import {
  unifiedResourceName,
  type UnifiedResource,
  type UnifiedResourcesResponse,
  type unifiedResourcesQuerySchema,
} from '@postern/contracts';
import type { z } from 'zod';
import type { UserAcl } from '@postern/contracts';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { badParameter } from '../../errors.js';
import type { ResourceListers } from '../../http/resource-listers.js';

type UnifiedQuery = z.output<typeof unifiedResourcesQuerySchema>;

/** Who asks: what their ACL lets them list, and the roles each list filters with. */
export interface UnifiedViewer {
  acl: UserAcl;
  roleSet: RoleSet;
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
  const items = listers
    .readable(viewer.acl, query.kinds)
    .flatMap((lister) =>
      lister
        .all(filter, viewer.roleSet, clusterId)
        .map((json) => ({ ...json, kind: lister.kind }) as UnifiedResource),
    );
  items.sort(comparator(query.sort ?? { field: 'name', dir: 'asc' }));
  const page = items.slice(offset, offset + query.limit);
  const next = offset + page.length;
  return {
    items: page,
    startKey: next < items.length ? String(next) : '',
    totalCount: items.length,
  };
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
