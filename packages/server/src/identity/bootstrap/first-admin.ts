import { AlreadyExistsError, type Backend } from '../../backend/index.js';
import type { IdentityServices } from '../index.js';
import { ownUserName } from '../../ssh/node-service/os-user.js';
import { userTokenUrl } from '../user-tokens/user-token-url.js';

/** Written once the first admin was created, so deleting every user later does not bring it back. */
export const bootstrapKey = '/cluster/bootstrap';
/** The URL the server announced, so admin commands print links with the real address and port. */
export const publicUrlKey = '/cluster/public_url';

export const firstAdmin = { name: 'admin', roles: ['editor', 'access', 'auditor'] };

/**
 * The login that works on the built-in server: the OS user Postern runs as. The node service can
 * switch users only as root (os-user.ts), so that is `root` when Postern runs as root, and the
 * user itself otherwise. None for a user id without a name (a container's `--user 1234`).
 */
export function hostLogins(): string[] {
  const name = ownUserName();
  return name ? [name] : [];
}

/** The first admin's invite, for the start output. */
export interface FirstAdminInvite {
  user: string;
  url: string;
  expiry: string;
  /** The admin's logins: what to pick under Connect for a terminal on this host. */
  logins: string[];
  /** True when the admin existed already and this link replaced an unused one. */
  renewed: boolean;
}

/**
 * On a fresh cluster, creates `admin` with `logins` and a one-time invite link for it. The marker
 * is claimed with a create, so of several proxies starting together on one database only one
 * does it. Later starts print a fresh link (the old one stops working) for as long as that admin
 * has never finished its invite: no password and no device, so a link that expired unused never
 * leaves the person who ran `postern start` stranded.
 */
export async function bootstrapFirstAdmin(
  backend: Backend,
  identity: Pick<IdentityServices, 'users' | 'tokens'>,
  baseUrl: string,
  logins: string[] = hostLogins(),
): Promise<FirstAdminInvite | null> {
  if (await backend.get(bootstrapKey)) return renewUnusedInvite(identity, baseUrl);
  const value = JSON.stringify({ at: new Date().toISOString() });
  if (await identity.users.store.any()) {
    await backend.upsert({ key: bootstrapKey, value });
    return null;
  }
  try {
    await backend.create({ key: bootstrapKey, value });
  } catch (error) {
    if (error instanceof AlreadyExistsError) return null;
    throw error;
  }
  await identity.users.create({ ...firstAdmin, logins }, 'postern');
  return invite(identity, baseUrl, logins, false);
}

async function renewUnusedInvite(
  identity: Pick<IdentityServices, 'users' | 'tokens'>,
  baseUrl: string,
): Promise<FirstAdminInvite | null> {
  const found = await identity.users.store.get(firstAdmin.name);
  if (!found || found.user.spec.authType !== 'local') return null;
  const { passwordHash, devices } = await identity.users.store.credentials(firstAdmin.name);
  if (passwordHash || devices.length > 0) return null;
  return invite(identity, baseUrl, found.user.spec.traits.logins, true);
}

async function invite(
  identity: Pick<IdentityServices, 'tokens'>,
  baseUrl: string,
  logins: string[],
  renewed: boolean,
): Promise<FirstAdminInvite> {
  const token = await identity.tokens.create(firstAdmin.name, 'invite', undefined, 'postern');
  const url = userTokenUrl(baseUrl, token);
  return { user: firstAdmin.name, url, expiry: token.expiry, logins, renewed };
}

export async function recordPublicUrl(backend: Backend, url: string): Promise<void> {
  await backend.upsert({ key: publicUrlKey, value: JSON.stringify({ url }) });
}

export async function recordedPublicUrl(backend: Backend): Promise<string | null> {
  const item = await backend.get(publicUrlKey);
  return item ? (JSON.parse(item.value) as { url: string }).url : null;
}
