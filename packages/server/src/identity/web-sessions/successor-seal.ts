import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * A renewed session keeps the id of its successor, so that a renewal whose answer was lost (a
 * closed tab, a dropped connection, a reload in the middle) can be asked again and lead to the
 * same session. Session ids are the cookies: the store only holds their SHA-256. The successor's
 * id is therefore sealed (AES-256-GCM) under a key derived from the old id with a different
 * hash input, which the holder of the old cookie can compute and the store's contents cannot.
 */
const keyFor = (sessionId: string) =>
  createHash('sha256').update('postern web session successor\0').update(sessionId).digest();

export function sealSuccessor(sessionId: string, successorId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(sessionId), iv);
  const sealed = Buffer.concat([cipher.update(successorId, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

/** The successor's id, or null when the seal was not made for this session id (or is damaged). */
export function openSuccessor(sessionId: string, sealed: string): string | null {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < 29) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(sessionId), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
