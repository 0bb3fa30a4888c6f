import {
  AlreadyExistsError,
  CompareFailedError,
  NotFoundError,
  type Backend,
} from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import type { RequestContext } from '../auth/session-cookie.js';
import type { UsersStore } from '../users/users.store.js';
import { challengeTtlMs } from './challenges.store.js';

const indexPrefix = '/webauthn_credentials/';
/** Written once every device stored before the index existed has its record. */
const backfilledKey = '/migrations/webauthn_credential_index';

/** The index record of one WebAuthn credential: the user whose device it is. */
export const webauthnCredentialKey = (credentialId: string) =>
  indexPrefix + Buffer.from(credentialId, 'base64url').toString('base64url');

interface IndexRecord {
  user: string;
}

/** Removes a credential's index record if it names `user` (another user's claim stays). */
export async function releaseWebauthnCredential(
  backend: Backend,
  user: string,
  credentialId: string,
): Promise<void> {
  const key = webauthnCredentialKey(credentialId);
  const item = await backend.get(key);
  if (!item || (JSON.parse(item.value) as IndexRecord).user !== user) return;
  await backend.delete(key, item.revision).catch(() => undefined);
}

/**
 * One WebAuthn credential belongs to one user. A credential id is claimed in its own record
 * (`/webauthn_credentials/<id>`) before the device is written, with the backend's conditional
 * create, so of two registrations of one id only one can win, and the check costs one read, not a
 * scan of every user. The claim is written with a TTL and made permanent once the device is
 * stored; a registration that died between the two writes leaves a claim that expires by itself.
 */
export class WebauthnCredentialIndex {
  constructor(
    private readonly backend: Backend,
    private readonly users: UsersStore,
    private readonly audit: AuditStore,
    private readonly now: Clock,
  ) {}

  /**
   * Claims `credentialId` for `user`, or refuses (409, audited) when it is registered already,
   * to them or anyone else. Call `confirm` once the device is stored, `release` if it is not.
   * `replacingOwn`: the user's devices are all being replaced (a reset), so their own old
   * registration of this key does not count.
   */
  async claim(
    user: string,
    credentialId: string,
    ctx: RequestContext,
    replacingOwn = false,
  ): Promise<void> {
    const key = webauthnCredentialKey(credentialId);
    const value = JSON.stringify({ user } satisfies IndexRecord);
    const pending = () => ({ key, value, expires: new Date(this.now() + 2 * challengeTtlMs) });
    for (let tries = 0; tries < 5; tries++) {
      try {
        await this.backend.create(pending());
        return;
      } catch (error) {
        if (!(error instanceof AlreadyExistsError)) throw error;
      }
      const item = await this.backend.get(key);
      if (!item) continue;
      const holder = (JSON.parse(item.value) as IndexRecord).user;
      if (replacingOwn && holder === user && !item.expires) return;
      // A pending claim (it has an expiry) is a registration under way: it counts as held.
      if (item.expires || (await this.holds(holder, credentialId))) {
        return this.refuse(user, holder, ctx);
      }
      // A permanent record whose device is gone (its removal stopped half-way): take it over,
      // only if nobody changed it meanwhile.
      try {
        await this.backend.update(pending(), item.revision);
        return;
      } catch (error) {
        if (!(error instanceof CompareFailedError || error instanceof NotFoundError)) throw error;
      }
    }
    return this.refuse(user, undefined, ctx);
  }

  /**
   * Gives every stored WebAuthn device that has no record one (devices registered before the
   * index existed), once per cluster: after a complete pass a marker says it is done. A key
   * found under two users keeps the record of the first; the second registration predates the
   * rule, and an administrator removes it.
   */
  async backfill(): Promise<void> {
    if (await this.backend.get(backfilledKey)) return;
    for await (const { user, credentials } of this.users.allCredentials()) {
      for (const device of credentials.devices) {
        if (device.webauthn) await this.recordIfMissing(user, device.webauthn.credentialId);
      }
    }
    await this.backend.upsert({ key: backfilledKey, value: JSON.stringify({ done: true }) });
  }

  private async recordIfMissing(user: string, credentialId: string): Promise<void> {
    const key = webauthnCredentialKey(credentialId);
    if (await this.backend.get(key)) return;
    const value = JSON.stringify({ user } satisfies IndexRecord);
    await this.backend.create({ key, value }).catch((error: unknown) => {
      if (!(error instanceof AlreadyExistsError)) throw error;
    });
  }

  /** Makes the claim permanent: the device is stored now. */
  async confirm(user: string, credentialId: string): Promise<void> {
    const key = webauthnCredentialKey(credentialId);
    await this.backend.upsert({ key, value: JSON.stringify({ user } satisfies IndexRecord) });
  }

  /** Removes the record of a credential of `user` (a device removed, a user deleted or reset). */
  release(user: string, credentialId: string): Promise<void> {
    return releaseWebauthnCredential(this.backend, user, credentialId);
  }

  private async holds(user: string, credentialId: string): Promise<boolean> {
    const { devices } = await this.users.credentials(user);
    return devices.some((device) => device.webauthn?.credentialId === credentialId);
  }

  private async refuse(user: string, holder: string | undefined, ctx: RequestContext) {
    await emitAudit(this.audit, 'TPOS016W', {
      user,
      mfa_device_type: 'WebAuthn',
      ...(holder ? { registered_to: holder } : {}),
      error: 'this WebAuthn credential is registered already',
      ...remoteAddr(ctx.addr),
    });
    // The answer never names the holder: it would tell who owns the key.
    throw new ApiError(
      'already_exists',
      'this key is registered already: a key can be registered once, to one user',
    );
  }
}
