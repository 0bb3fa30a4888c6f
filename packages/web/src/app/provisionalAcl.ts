import { aclAreas, emptyAcl, type UserAcl } from '@postern/contracts';

/**
 * PROVISIONAL. Until the user-context endpoint (`GET /v1/webapi/sites/:clusterId/context`) exists,
 * a signed-in session gets an ACL that allows every area, so the console shows everything this
 * build implements. This only decides what the UI shows: the server enforces access on every call
 * regardless. Replace the single use of this function with the fetched `userAcl`.
 */
export function provisionalAclUntilUserContext(): UserAcl {
  const acl = emptyAcl();
  for (const area of aclAreas) {
    Object.assign(acl[area], { list: true, read: true, edit: true, create: true, remove: true });
  }
  acl.integrations.use = true;
  return acl;
}
