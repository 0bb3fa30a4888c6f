import { apiPaths, sessionResponseSchema, type RenewSessionRequest } from '@postern/contracts';
import { api, decode } from '../../api';
import { storeToken } from '../../api/credentials';
import { pageLocation } from '../../lib/pageLocation';
import { toBearerToken } from './bearerMeta';

/**
 * Changing the roles of the session (reference §1.2): a renewal that assumes an approved access
 * request (`{requestId}`) or drops every assumed one (`{switchback: true}`). The server answers
 * with a new session, like a plain renewal: the new bearer is stored (as the session lifecycle
 * stores its own renewals, so other tabs pick it up), then the page loads again so the user
 * context, the ACL and the navigation follow the new roles.
 */
export async function renewSessionWith(
  body: RenewSessionRequest,
  storage: Storage = localStorage,
  now: () => number = Date.now,
): Promise<void> {
  const url = apiPaths.renewSession;
  const response = decode(sessionResponseSchema, await api.post(url, body), url);
  storeToken(toBearerToken(response, now()), storage);
}

/** Assumes an approved request's roles, then reloads the current page under them. */
export async function assumeAccessRequest(requestId: string): Promise<void> {
  await renewSessionWith({ requestId });
  pageLocation.assign(pageLocation.current());
}

/** Goes back to the base roles, then reloads the current page under them. */
export async function dropAssumedRoles(): Promise<void> {
  await renewSessionWith({ switchback: true });
  pageLocation.assign(pageLocation.current());
}
