import { authenticator } from 'otplib';
import QRCode from 'qrcode';

/** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30 s steps. */
const stepSeconds = 30;

/** A new secret: 160 random bits (RFC 4226's recommended length), base32 for the apps. */
export function newTotpSecret(): string {
  return authenticator.generateSecret(20);
}

/**
 * The time step a code belongs to, or null when it matches none. One step either side of now is
 * accepted for clock drift; callers refuse a step at or before the device's last used one, so
 * each code works once.
 */
export function totpStep(secret: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = authenticator.clone({ window: 1, epoch: now }).checkDelta(code, secret);
  if (delta === null) return null;
  return Math.floor(now / 1000 / stepSeconds) + delta;
}

/** The otpauth:// URI apps scan: label `<cluster>:<user>`, issuer Postern. */
export function totpUri(secret: string, cluster: string, user: string): string {
  const label = `${encodeURIComponent(cluster)}:${encodeURIComponent(user)}`;
  const query = new URLSearchParams({
    secret,
    issuer: 'Postern',
    algorithm: 'SHA1',
    digits: '6',
    period: String(stepSeconds),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}

/** The URI as an SVG QR code in a data URL, drawn on the server so the console needs no library. */
export async function totpQrCode(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}
