import { AlreadyExistsError, type Backend } from '../../backend/index.js';
import type { IdentityServices } from '../../identity.js';
import { userTokenUrl } from '../user-tokens/user-tokens.service.js';

/** Written once the first admin was created, so deleting every user later does not bring it back. */
export const bootstrapKey = '/cluster/bootstrap';
/** The URL the server announced, so admin commands print links with the real address and port. */
export const publicUrlKey = '/cluster/public_url';

export const firstAdmin = { name: 'admin', roles: ['editor', 'access', 'auditor'] };

/**
 * On a fresh cluster, creates `admin` and a one-time invite link for it. The marker is claimed
 * with a create, so of several proxies starting together on one database only one does it.
 */
export async function bootstrapFirstAdmin(
  backend: Backend,
  identity: Pick<IdentityServices, 'users' | 'tokens'>,
  baseUrl: string,
): Promise<{ url: string; expiry: string } | null> {
  if (await backend.get(bootstrapKey)) return null;
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
  await identity.users.create(firstAdmin, 'postern');
  const token = await identity.tokens.create(firstAdmin.name, 'invite', undefined, 'postern');
  return { url: userTokenUrl(baseUrl, token), expiry: token.expiry };
}

export async function recordPublicUrl(backend: Backend, url: string): Promise<void> {
  await backend.upsert({ key: publicUrlKey, value: JSON.stringify({ url }) });
}

export async function recordedPublicUrl(backend: Backend): Promise<string | null> {
  const item = await backend.get(publicUrlKey);
  return item ? (JSON.parse(item.value) as { url: string }).url : null;
}
