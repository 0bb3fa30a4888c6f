import type { AclArea, UserAcl } from '@postern/contracts';
import type { RoleSet } from '../access-control/rbac/index.js';
import type { ServerContext } from '../part.js';
import type { SearchAs } from './list-viewer.js';
import type { SignedRequestAuth } from './resource-list-route.js';

/** One wing's resource list, as the lists of every kind are asked together. */
export interface ResourceLister {
  /** The ACL area whose `list` verb the wing's list needs. */
  area: AclArea;
  /** The kind its items are (the route's resource type: `node`, `app`, `db`…). */
  kind: string;
  /** Whether the viewer sees at least one resource of it. */
  anyVisible(viewer: RoleSet | null): boolean;
  /**
   * Every resource the viewer sees that matches the search words and label clauses, as the
   * wing's own list answers them. Bad search or clauses throw the list's own 400.
   */
  all(filter: ResourceFilter, viewer: RoleSet | null, clusterId: string): object[];
}

export interface ResourceFilter {
  search: string;
  query: string;
}

/**
 * Every wing's resource list, as `resourceListRoute` registers them: what `resources/check`
 * asks ("may this user reach anything yet?"), with each wing's own RBAC filter, so nothing
 * about resources is answered twice.
 */
export class ResourceListers {
  private readonly listers: ResourceLister[] = [];

  add(lister: ResourceLister): void {
    this.listers.push(lister);
  }

  /** True when a list the ACL lets the user read shows them at least one resource. */
  anyVisibleTo(acl: UserAcl, viewer: RoleSet | null): boolean {
    return this.listers.some((lister) => acl[lister.area].list && lister.anyVisible(viewer));
  }

  /** The lists the ACL lets the user read, of the kinds asked for (all when none is named). */
  readable(acl: UserAcl, kinds?: readonly string[]): ResourceLister[] {
    return this.listers.filter(
      (lister) => acl[lister.area].list && (!kinds?.length || kinds.includes(lister.kind)),
    );
  }
}

/** What every wing's resource list route is built with (resource-list-route.ts). */
export interface ListContext {
  clusterName: string;
  searchAs: SearchAs;
  certAuth: SignedRequestAuth;
  listers: ResourceListers;
}

export function listContext(ctx: ServerContext): ListContext {
  return {
    clusterName: ctx.config.clusterName,
    searchAs: (actor, type) => ctx.accessControl.accessRequests.searchAs(actor, type),
    certAuth: ctx.identity.certAuth,
    listers: ctx.resourceListers,
  };
}
