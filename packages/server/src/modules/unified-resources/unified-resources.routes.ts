import {
  apiPaths,
  unifiedResourcesQuerySchema,
  type UnifiedResourcesResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { notAuthenticated } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import type { SearchAs } from '../../http/list-viewer.js';
import type { ResourceListers } from '../../http/resource-listers.js';
import { unifiedPage } from './unified-resources.service.js';

export interface UnifiedResourcesRoutesOptions {
  listers: ResourceListers;
  clusterName: string;
  /** The caller's search-as roles, the search audited (for requestable resources). */
  searchAs: SearchAs;
  /** The resources the user pinned on a cluster (`/user/preferences/:clusterId`). */
  pinnedOf: (user: string, clusterId: string) => Promise<string[]>;
}

/**
 * `GET sites/{clusterId}/resources` (reference §1.5 [now]): every kind the caller may list, in
 * one list. Any signed-in user may ask; each kind is there only if their ACL lets them list it,
 * and holds only what their roles let them see, or, with `includedResourceMode`, also what their
 * search-as roles would (refused, 403, to someone without any).
 */
export async function unifiedResourcesRoutes(
  app: FastifyInstance,
  { listers, clusterName, searchAs, pinnedOf }: UnifiedResourcesRoutesOptions,
) {
  app.get<{ Params: { clusterId: string } }>(
    apiPaths.patterns.unifiedResources,
    { config: { access: 'authenticated' } },
    async (request): Promise<UnifiedResourcesResponse> => {
      const clusterId = resolveClusterId(request.params.clusterId, clusterName);
      const identity = request.identity;
      if (!identity) throw notAuthenticated();
      const query = parseInput(unifiedResourcesQuerySchema, request.query);
      const actor = { name: identity.user, roleSet: identity.roleSet };
      // The search is audited with the kinds it lists, as each kind's own list audits its own.
      const kinds = listers
        .readable(identity.acl, query.kinds)
        .map((lister) => lister.kind)
        .join(',');
      const viewer = {
        acl: identity.acl,
        roleSet: identity.roleSet,
        searchAs:
          query.includedResourceMode === 'accessible' ? undefined : await searchAs(actor, kinds),
        pinned:
          query.pinnedOnly === 'true'
            ? new Set(await pinnedOf(identity.user, clusterId))
            : undefined,
      };
      return unifiedPage(listers, viewer, query, clusterId);
    },
  );
}
