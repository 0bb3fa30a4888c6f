import type { BearerToken } from '../../api/credentials';

/** The meta tag the server fills with base64 JSON of the login response (spec §7). */
export const bearerMetaName = 'grv_bearer_token';

interface SessionResponse {
  token: string;
  expires_in: number;
  sessionExpires?: string;
  sessionInactiveTimeout?: number;
}

function isSessionResponse(value: unknown): value is SessionResponse {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.token === 'string' && v.token !== '' && typeof v.expires_in === 'number';
}

/** Maps the server's login/renew response to the stored token (spec §3 "Bearer token info"). */
export function toBearerToken(response: SessionResponse, now: number): BearerToken {
  return {
    accessToken: response.token,
    expiresIn: response.expires_in,
    created: now,
    sessionExpires: response.sessionExpires ?? '',
    sessionInactiveTimeout: response.sessionInactiveTimeout ?? 0,
  };
}

function decodeBase64Json(text: string): unknown {
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

/**
 * Reads the bearer meta tag and removes it from the DOM, so the token does not linger in the page
 * for anything else to read. Returns null when the tag is absent, empty or unreadable (for example
 * the unfilled placeholder of a page served without a session).
 */
export function takeBearerFromMeta(doc: Document, now: number): BearerToken | null {
  const meta = doc.querySelector(`meta[name="${bearerMetaName}"]`);
  if (!meta) return null;
  const content = meta.getAttribute('content') ?? '';
  meta.remove();
  if (!content) return null;
  try {
    const parsed = decodeBase64Json(content);
    return isSessionResponse(parsed) ? toBearerToken(parsed, now) : null;
  } catch {
    return null;
  }
}
