import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import { createHash } from 'node:crypto';
import { deleteIfPresent, type Backend } from '../backend/index.js';
import { stateTtlMs } from './sso-state-ttl.js';

const prefix = '/saml_requests/';

/**
 * The AuthnRequest ids this proxy sent, for node-saml's InResponseTo check, in the backend so any
 * proxy can take the IdP's answer. An id is removed once answered, so a response is good once.
 */
export class SamlRequestStore implements CacheProvider {
  constructor(private readonly backend: Backend) {}

  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    const item = { value, createdAt: Date.now() };
    await this.backend.upsert({
      key: keyOf(key),
      value: JSON.stringify(item),
      expires: new Date(Date.now() + stateTtlMs),
    });
    return item;
  }

  async getAsync(key: string): Promise<string | null> {
    const item = await this.backend.get(keyOf(key));
    return item ? (JSON.parse(item.value) as CacheItem).value : null;
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (!key) return null;
    const item = await this.backend.get(keyOf(key));
    if (!item) return null;
    await deleteIfPresent(this.backend, item.key, item.revision);
    return (JSON.parse(item.value) as CacheItem).value;
  }
}

const keyOf = (id: string) => prefix + createHash('sha256').update(id).digest('hex');
