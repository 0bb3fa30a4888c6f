import { randomBytes, randomUUID } from 'node:crypto';
import type { DeviceUsage, MfaDevice } from '@postern/contracts';
import type { MfaDeviceRecord, UserCredentials, UsersStore } from '../users/users.store.js';
import type { WebauthnCredential } from './webauthn.service.js';

/** A new device record, as registered by an invite, a reset or the account page. */
export function newDevice(args: {
  name: string | undefined;
  now: number;
  usage: DeviceUsage;
  totp?: { secret: string; step: number };
  webauthn?: WebauthnCredential;
}): MfaDeviceRecord {
  const at = new Date(args.now).toISOString();
  const type = args.webauthn ? 'webauthn' : 'totp';
  const fallbackName =
    type === 'totp' ? 'otp' : args.usage === 'passwordless' ? 'passkey' : 'webauthn';
  return {
    id: randomUUID(),
    name: args.name?.trim() || fallbackName,
    type,
    usage: args.usage,
    addedAt: at,
    lastUsed: at,
    ...(args.totp ? { totp: { secret: args.totp.secret, lastUsedStep: args.totp.step } } : {}),
    ...(args.webauthn ? { webauthn: args.webauthn } : {}),
  };
}

/** The console's view of a device (spec §3): never the secret or the key. */
export function deviceView(device: MfaDeviceRecord): MfaDevice {
  return {
    id: device.id,
    name: device.name,
    type: device.type === 'totp' ? 'TOTP' : 'WebAuthn',
    usage: device.usage,
    addedAt: device.addedAt,
    lastUsed: device.lastUsed,
  };
}

/**
 * The user's WebAuthn user handle, created on first need. It is indexed so that a passkey's
 * assertion, which names only the handle, leads back to the user.
 */
export async function ensureWebauthnUserId(users: UsersStore, user: string): Promise<string> {
  const existing = (await users.credentials(user)).webauthnUserId;
  if (existing) return existing;
  const fresh = randomBytes(32).toString('base64url');
  const handle = await users.mutateCredentials(user, (credentials: UserCredentials) => {
    const webauthnUserId = credentials.webauthnUserId ?? fresh;
    return { credentials: { ...credentials, webauthnUserId }, result: webauthnUserId };
  });
  await users.putWebauthnHandle(handle, user);
  return handle;
}
