import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Backend } from '../../backend/index.js';
import { clusterSecret } from '../../cluster-secrets.js';

const version = 'v1';
const ivBytes = 12;
const tagBytes = 16;

/**
 * Seals integration secrets at rest with AES-256-GCM, under a key of the cluster kept in the
 * backend (`/cluster_secrets/integration-seal`), so every proxy can open what another sealed but
 * a copy of one integration's record alone (a backup, a log of the table) reveals nothing.
 *
 * Each value is bound to where it belongs (`context`: integration and field) as additional data:
 * a sealed value copied into another integration or field fails to open instead of being used
 * there.
 */
export class SecretBox {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly loadKey: () => Promise<Buffer>) {}

  static forBackend(backend: Backend): SecretBox {
    return new SecretBox(() => clusterSecret(backend, 'integration-seal'));
  }

  /** `v1.<base64url of iv | tag | ciphertext>`. */
  async seal(plain: string, context: string): Promise<string> {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', await this.keyOnce(), iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${version}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  async open(sealed: string, context: string): Promise<string> {
    const [tag, data] = sealed.split('.', 2);
    if (tag !== version || !data) throw new Error('sealed secret: unknown format');
    const raw = Buffer.from(data, 'base64url');
    const decipher = createDecipheriv(
      'aes-256-gcm',
      await this.keyOnce(),
      raw.subarray(0, ivBytes),
    );
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(ivBytes, ivBytes + tagBytes));
    const body = raw.subarray(ivBytes + tagBytes);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }

  /** Loaded on first use, so a proxy with no integration never writes the key. */
  private keyOnce(): Promise<Buffer> {
    this.key ??= this.loadKey().catch((error: unknown) => {
      this.key = undefined; // a storage hiccup must not stick: the next call asks again
      throw error;
    });
    return this.key;
  }
}

/** The additional data a secret is sealed with: integration and field. */
export const sealContext = (integration: string, field: string) =>
  `integration/${integration}/${field}`;
