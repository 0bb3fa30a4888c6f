import { createHash } from 'node:crypto';
import { sessionMfaGrantMs } from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';

/**
 * Checks a web session passed for a resource it opens many times in a row (`files:<serverId>`:
 * the files chosen together in one transfer), kept in the backend with a time to live so that
 * every proxy behind the same storage honours them, as a per-session certificate opens the
 * sessions it names for a minute on the command line.
 */
export class SessionMfaGrants {
  constructor(private readonly deps: { backend: Backend; now: Clock }) {}

  /**
   * Records a passed check, with the device that answered it (an `mfa_device` lock on it ends
   * what the check opens); returns when it stops letting sessions start.
   */
  async grant(webSessionId: string, resource: string, device?: string): Promise<Date> {
    const expires = new Date(this.deps.now() + sessionMfaGrantMs);
    const value = JSON.stringify(device ? { device } : {});
    await this.deps.backend.upsert({ key: grantKey(webSessionId, resource), value, expires });
    return expires;
  }

  /** The check this web session passed for `resource`, while it still lets sessions start. */
  async find(webSessionId: string, resource: string): Promise<SessionMfaGrant | undefined> {
    const item = await this.deps.backend.get(grantKey(webSessionId, resource));
    if (item === null || (item.expires?.getTime() ?? 0) <= this.deps.now()) return undefined;
    return grantFromValue(item.value);
  }

  /** Whether a check this web session passed for `resource` still lets sessions start. */
  async holds(webSessionId: string, resource: string): Promise<boolean> {
    return (await this.find(webSessionId, resource)) !== undefined;
  }
}

/** A passed check: the device that answered it, when one did (a trusted root's word has none). */
export interface SessionMfaGrant {
  device?: string;
}

/** The stored value; a grant an earlier release wrote (`1`) names no device. */
function grantFromValue(value: string): SessionMfaGrant {
  try {
    const parsed: unknown = JSON.parse(value);
    const device = (parsed as { device?: unknown } | null)?.device;
    return typeof device === 'string' ? { device } : {};
  } catch {
    return {};
  }
}

/** The web session by a digest (its id is a credential), the resource encoded as one segment. */
function grantKey(webSessionId: string, resource: string): string {
  const session = createHash('sha256').update(webSessionId).digest('base64url');
  return `/session_mfa_grants/${session}/${encodeURIComponent(resource)}`;
}
