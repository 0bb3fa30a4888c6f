import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { Backend } from '../../backend/index.js';
import { clusterSecret } from '../../cluster-secrets.js';
import { ed25519BlobFromKeyObject, ED25519, formatPublicKey } from '../../ssh/keys.js';

/** PKCS#8 DER of an Ed25519 private key, up to its 32-byte seed (RFC 8410). */
const pkcs8Ed25519Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface ClusterKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key as an OpenSSH line (what a root certifies for a leaf's tunnel). */
  openSsh: string;
  /** The public key as SPKI PEM (what a leaf keeps to check a root's signatures). */
  spkiPem: string;
}

/**
 * An Ed25519 key of the cluster for one purpose, from a cluster secret used as its seed, so every
 * proxy on the same storage holds the same key without one ever being written out as a file.
 * `tunnel`: a leaf proves itself to its roots with it; `forwarded_identity`: a root signs the
 * identities of the users it forwards to its leaves.
 */
export async function clusterKey(
  backend: Backend,
  purpose: 'tunnel' | 'forwarded_identity',
): Promise<ClusterKey> {
  const seed = await clusterSecret(backend, `trusted_cluster_${purpose}_key`);
  const privateKey = createPrivateKey({
    key: Buffer.concat([pkcs8Ed25519Prefix, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey);
  return {
    privateKey,
    publicKey,
    openSsh: formatPublicKey(ED25519, ed25519BlobFromKeyObject(publicKey)),
    spkiPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
