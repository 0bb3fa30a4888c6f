import { createPublicKey, type KeyObject } from 'node:crypto';

/** An Ed25519 key, public or seed, is 32 bytes. */
const KEY_LENGTH = 32;

/** What comes before the raw key in an Ed25519 SubjectPublicKeyInfo and PKCS#8 (RFC 8410). */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * Why DER and never `export({ format: 'jwk' })` for Ed25519 keys: Node 20 writes an Ed25519 JWK
 * while holding the key's mutex, and allocating its strings can run a garbage collection; when
 * that collection frees the KeyGenJob that generated the key (generateKeyPairSync leaves it for
 * the collector), the job's destructor takes the same mutex, and the thread waits on itself
 * forever. It hung a test process for good in CI (gdb: ExportJWKEdKey -> GC -> ~KeyGenJob ->
 * mutex). The DER writers take no lock.
 */
function ed25519Der(key: KeyObject, type: 'spki' | 'pkcs8', prefix: Buffer): Buffer {
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 key');
  const der = key.export({ format: 'der', type });
  if (der.length !== prefix.length + KEY_LENGTH || !der.subarray(0, prefix.length).equals(prefix)) {
    throw new Error(`unexpected Ed25519 ${type} encoding`);
  }
  return der.subarray(prefix.length);
}

/** The raw 32-byte public key of an Ed25519 key (given its public or its private half). */
export function rawEd25519PublicKey(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return ed25519Der(publicKey, 'spki', ED25519_SPKI_PREFIX);
}

/** The 32-byte seed of an Ed25519 private key (RFC 8032's private key). */
export function ed25519Seed(privateKey: KeyObject): Buffer {
  return ed25519Der(privateKey, 'pkcs8', ED25519_PKCS8_PREFIX);
}
