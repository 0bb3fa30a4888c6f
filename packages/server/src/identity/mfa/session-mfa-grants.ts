import { createHash } from 'node:crypto';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';

/** How long a passed check lets a web session's file transfers to a server start. */
export const sessionMfaGrantMs = 60_000;

/**
 * Checks a web session passed for a resource it opens many times in a row (`files:<serverId>`:
 * the files chosen together in one transfer), kept in the backend with a time to live so that
 * every proxy behind the same storage honours them, as a per-session certificate opens the
 * sessions it names for a minute on the command line.
 */
export class SessionMfaGrants {
  constructor(private readonly deps: { backend: Backend; now: Clock }) {}

  /** Records a passed check; returns when it stops letting sessions start. */
  async grant(webSessionId: string, resource: string): Promise<Date> {
    const expires = new Date(this.deps.now() + sessionMfaGrantMs);
    await this.deps.backend.upsert({ key: grantKey(webSessionId, resource), value: '1', expires });
    return expires;
  }

  /** Whether a check this web session passed for `resource` still lets sessions start. */
  async holds(webSessionId: string, resource: string): Promise<boolean> {
    const item = await this.deps.backend.get(grantKey(webSessionId, resource));
    return item !== null && (item.expires?.getTime() ?? 0) > this.deps.now();
  }
}

/** The web session by a digest (its id is a credential), the resource encoded as one segment. */
function grantKey(webSessionId: string, resource: string): string {
  const session = createHash('sha256').update(webSessionId).digest('base64url');
  return `/session_mfa_grants/${session}/${encodeURIComponent(resource)}`;
}
