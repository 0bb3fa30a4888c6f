import { randomBytes } from 'node:crypto';
import { AlreadyExistsError, type Backend } from './backend/index.js';

const prefix = '/cluster_secrets/';

/**
 * A random secret of the cluster for one purpose (`name`), kept in the backend so that every
 * proxy on the same storage uses the same one. It is created once, by whichever proxy asks
 * first: a conditional create, so two proxies starting together still agree on one value.
 */
export async function clusterSecret(backend: Backend, name: string): Promise<Buffer> {
  const key = prefix + name;
  const fresh = randomBytes(32).toString('base64url');
  try {
    await backend.create({ key, value: JSON.stringify({ secret: fresh }) });
    return Buffer.from(fresh, 'base64url');
  } catch (error) {
    if (!(error instanceof AlreadyExistsError)) throw error;
  }
  const item = await backend.get(key);
  if (!item) throw new Error(`cluster secret ${name} vanished while it was read`);
  return Buffer.from((JSON.parse(item.value) as { secret: string }).secret, 'base64url');
}
