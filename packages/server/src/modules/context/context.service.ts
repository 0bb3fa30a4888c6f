import type { UserContext } from '@postern/contracts';
import type { Identity } from '../../http/request-identity.js';
import type { AssumedRequests } from '../../access-control/access/assumed-requests.js';
import type { ClustersService } from '../clusters/clusters.service.js';

export interface UserContextDeps {
  clusters: ClustersService;
  /** Every role name, for the roles the user may request. */
  roleNames: () => string[];
  /** The watched access requests, for the one the session assumed. */
  requests: Pick<AssumedRequests, 'liveOf'>;
}

/**
 * The console's bootstrap call (reference §1.4): who the user is, what their roles MIGHT allow
 * (the console derives its feature flags from it), the cluster, and how access requests work.
 */
export class UserContextService {
  constructor(private readonly deps: UserContextDeps) {}

  async contextFor(identity: Identity): Promise<UserContext> {
    const [cluster] = await this.deps.clusters.list();
    if (!cluster) throw new Error('no local cluster');
    const options = identity.roleSet.options();
    const assumed = this.deps.requests.liveOf(identity.user, identity.session.accessRequests ?? []);
    const ends = assumed.map((request) => request.spec.accessExpires).sort();
    const roleNames = this.deps.roleNames();
    return {
      userName: identity.user,
      authType: identity.authType,
      roles: [...identity.roles].sort(),
      logins: identity.roleSet.certificateLogins(),
      userAcl: identity.acl,
      cluster,
      accessStrategy: { type: options.requestAccess, prompt: options.requestPrompt },
      accessCapabilities: {
        requestableRoles: identity.roleSet
          .requestableRoles(roleNames)
          .filter((role) => !identity.roles.includes(role)),
        suggestedReviewers: identity.roleSet.suggestedReviewers(),
      },
      // Access requests (a later issue) set this when the session carries assumed roles.
      accessRequestId: assumed.at(-1)?.metadata.name ?? '',
      accessRequestExpires: ends[0] ?? '',
      assumedRoles: identity.assumedRoles,
      allowedSearchAsRoles: identity.roleSet.searchAsRoles(roleNames),
    };
  }
}
