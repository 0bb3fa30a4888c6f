import { badParameter } from '../../../errors.js';
import { ED25519, fingerprint, formatPublicKey, parsePublicKey } from '../../../ssh/keys.js';

/**
 * A host public key as the inventory keeps it: `type base64`, without the comment, so that two
 * copies of one key compare equal whatever file they came from. A bad line is a 400.
 */
export function normalizeHostKey(line: string, { ed25519Only = false } = {}): string {
  let parsed;
  try {
    parsed = parsePublicKey(line);
  } catch (error) {
    throw badParameter(`hostPublicKey: ${(error as Error).message}`);
  }
  if (ed25519Only && parsed.type !== ED25519) {
    throw badParameter(`hostPublicKey: expected an ${ED25519} key, got ${parsed.type}`);
  }
  return formatPublicKey(parsed.type, parsed.blob);
}

/** `SHA256:…` for audit events and messages; '' for a line that does not parse. */
export function safeFingerprint(line: string): string {
  try {
    return fingerprint(line);
  } catch {
    return '';
  }
}
