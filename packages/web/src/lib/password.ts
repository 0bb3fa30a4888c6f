/**
 * Passwords travel base64-encoded (spec §5): base64 of the UTF-8 bytes, so any character
 * survives the server's byte-string field.
 */
export function encodePassword(password: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(password)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
