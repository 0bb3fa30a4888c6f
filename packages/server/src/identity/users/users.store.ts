import type { DeviceUsage } from '@postern/contracts';
import {
  AlreadyExistsError,
  NotFoundError,
  retryOnConflict,
  type Backend,
} from '../../backend/index.js';
import { ApiError } from '../../errors.js';
import { releaseWebauthnCredential } from '../mfa/credential-index.js';

/** A user as a resource: what listing users shows. Secrets live apart, in UserCredentials. */
export interface UserResource {
  kind: 'user';
  version: 'v2';
  metadata: { name: string };
  spec: {
    roles: string[];
    traits: { logins: string[]; [trait: string]: string[] };
    /** `sso`: made by a sign-in through a connector; such a user has no password or devices. */
    authType: 'local' | 'sso';
    /** SSO users: the connector they last signed in through. */
    connector?: { kind: string; name: string };
    /** SSO users: when the record goes (their web session's end); the backend removes it then. */
    expires?: string;
    /**
     * A machine identity's user (`bot-<name>`, identity/bots/): it has no password and joins
     * with a token instead, so password links are refused for it.
     */
    bot?: string;
    createdAt: string;
  };
  status: { lockedUntil?: string; lockReason?: string };
  /**
   * The last change of credentials (credential-changes.ts): web sessions and certificates
   * issued before `at` no longer count, except the web sessions of `keptLineage` (the one that
   * made the change). Beside `status`, which sign-in lockouts overwrite.
   */
  credentialsChanged?: { at: string; keptLineage?: string };
}

export interface MfaDeviceRecord {
  id: string;
  name: string;
  type: 'totp' | 'webauthn';
  usage: DeviceUsage;
  addedAt: string;
  lastUsed: string;
  /** The last accepted time step: a code of this step or an earlier one is refused (single use). */
  totp?: { secret: string; lastUsedStep: number };
  webauthn?: {
    credentialId: string;
    /** COSE public key, base64url. */
    publicKey: string;
    counter: number;
    transports: string[];
    userHandle: string;
  };
}

/** Secrets of one user, under their own key so that listing users never reads a hash. */
export interface UserCredentials {
  passwordHash?: string;
  devices: MfaDeviceRecord[];
  /** The WebAuthn user handle (base64url), fixed for the user's life so passkeys find them. */
  webauthnUserId?: string;
}

export const usersPrefix = '/users/';
const credentialsPrefix = '/user_credentials/';
const handlesPrefix = '/webauthn_user_handles/';

export class UsersStore {
  constructor(private readonly backend: Backend) {}

  async get(name: string): Promise<{ user: UserResource; revision: string } | null> {
    const item = await this.backend.get(usersPrefix + name);
    return item ? { user: JSON.parse(item.value) as UserResource, revision: item.revision } : null;
  }

  async list(): Promise<UserResource[]> {
    const { items } = await this.backend.list({ prefix: usersPrefix });
    return items.map((item) => JSON.parse(item.value) as UserResource);
  }

  async any(): Promise<boolean> {
    const { items } = await this.backend.list({ prefix: usersPrefix, limit: 1 });
    return items.length > 0;
  }

  async create(user: UserResource): Promise<void> {
    try {
      await this.backend.create({
        key: usersPrefix + user.metadata.name,
        value: JSON.stringify(user),
      });
    } catch (error) {
      if (error instanceof AlreadyExistsError) {
        throw new ApiError('already_exists', `user ${user.metadata.name} already exists`);
      }
      throw error;
    }
  }

  /** Read-modify-write with the revision, retried when another writer got there first. */
  async mutate(name: string, change: (user: UserResource) => UserResource): Promise<UserResource> {
    return retryOnConflict(async () => {
      const current = await this.get(name);
      if (!current) throw new ApiError('not_found', `user ${name} not found`);
      const next = change(structuredClone(current.user));
      // An SSO user keeps expiring with their session, whatever an administrator changes.
      const expires = next.spec.expires ? new Date(next.spec.expires) : undefined;
      await this.backend.update(
        { key: usersPrefix + name, value: JSON.stringify(next), ...(expires ? { expires } : {}) },
        current.revision,
      );
      return next;
    });
  }

  /**
   * Creates or refreshes an SSO user, expiring with their session. A local user of the same name
   * is never overwritten: that would hand their account to whoever controls the provider.
   */
  async putSsoUser(user: UserResource, expires: Date): Promise<void> {
    const name = user.metadata.name;
    await retryOnConflict(async () => {
      const current = await this.get(name);
      if (current && current.user.spec.authType !== 'sso') throw new LocalUserExistsError(name);
      // The first sign-in is when the user appeared; later ones refresh everything else.
      const createdAt = current?.user.spec.createdAt ?? user.spec.createdAt;
      // The record must outlive every session and certificate issued for it, so it never
      // expires sooner than it did (a CLI certificate may outlive a later web session).
      const before = Date.parse(current?.user.spec.expires ?? '') || 0;
      const until = new Date(Math.max(before, expires.getTime()));
      const next = { ...user, spec: { ...user.spec, createdAt, expires: until.toISOString() } };
      const item = { key: usersPrefix + name, value: JSON.stringify(next), expires: until };
      if (current) await this.backend.update(item, current.revision);
      else await this.backend.create(item);
    });
  }

  /**
   * Removes the user and their secrets (password hash, devices and their credential index
   * records, passkey handle). Returns false when there was no such user. Other records of theirs
   * (sessions, links) belong to other stores.
   */
  async delete(name: string): Promise<boolean> {
    const { webauthnUserId, devices } = await this.credentials(name);
    if (webauthnUserId) await this.backend.delete(handlesPrefix + webauthnUserId).catch(ignore);
    for (const device of devices) {
      if (device.webauthn) {
        await releaseWebauthnCredential(this.backend, name, device.webauthn.credentialId);
      }
    }
    await this.backend.delete(credentialsPrefix + name).catch(ignore);
    try {
      await this.backend.delete(usersPrefix + name);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }

  async credentials(name: string): Promise<UserCredentials> {
    const item = await this.backend.get(credentialsPrefix + name);
    return item ? (JSON.parse(item.value) as UserCredentials) : { devices: [] };
  }

  /**
   * Changes a user's credentials atomically: `change` sees the stored value and may throw to
   * refuse. Checks that must not race (a TOTP step used once) belong inside `change`.
   */
  async mutateCredentials<T>(
    name: string,
    change: (credentials: UserCredentials) => { credentials: UserCredentials; result: T },
  ): Promise<T> {
    return retryOnConflict(async () => {
      const key = credentialsPrefix + name;
      const item = await this.backend.get(key);
      const current = item ? (JSON.parse(item.value) as UserCredentials) : { devices: [] };
      const { credentials, result } = change(structuredClone(current));
      const value = JSON.stringify(credentials);
      if (item) await this.backend.update({ key, value }, item.revision);
      else await this.backend.create({ key, value });
      return result;
    });
  }

  /** Every user's credentials, a page at a time (for one-off passes such as a migration). */
  async *allCredentials(): AsyncGenerator<{ user: string; credentials: UserCredentials }> {
    let startKey: string | undefined;
    do {
      const page = await this.backend.list({
        prefix: credentialsPrefix,
        limit: 1000,
        ...(startKey ? { startKey } : {}),
      });
      for (const item of page.items) {
        const user = item.key.slice(credentialsPrefix.length);
        yield { user, credentials: JSON.parse(item.value) as UserCredentials };
      }
      startKey = page.nextKey;
    } while (startKey);
  }

  async userForWebauthnHandle(handle: string): Promise<string | null> {
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(handle)) return null;
    const item = await this.backend.get(handlesPrefix + handle);
    return item ? (JSON.parse(item.value) as { user: string }).user : null;
  }

  async putWebauthnHandle(handle: string, user: string): Promise<void> {
    await this.backend.upsert({ key: handlesPrefix + handle, value: JSON.stringify({ user }) });
  }
}

const ignore = () => undefined;

export class LocalUserExistsError extends Error {
  constructor(readonly user: string) {
    super(`a local user named ${user} exists`);
    this.name = 'LocalUserExistsError';
  }
}
