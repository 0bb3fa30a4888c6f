import { z } from 'zod';
import type { ConnectorKind } from './connectors.js';

/**
 * Single sign-on from the command line (`postern login --auth NAME`, docs/cli-login.md): the
 * CLI listens on its own loopback, the browser signs in at the provider, and the proxy sends
 * the browser back to that loopback with a one-time code. The CLI trades the code, together with
 * a secret only it knows, for a certificate. A link someone else started ends on the victim's
 * own loopback, where nothing of theirs listens: the loopback address is what defeats phishing.
 */

export const ssoConsolePaths = {
  /** `POST`: the CLI starts a sign-in; answers the URL the browser opens. */
  login: (kind: ConnectorKind) => `/v1/webapi/${kind}/login/console`,
  /** `GET` (the browser): one use; sets the state cookie and redirects to the provider. */
  begin: (kind: ConnectorKind, id: string) =>
    `/v1/webapi/${kind}/login/console/${encodeURIComponent(id)}`,
  /** `POST`: the CLI trades the code and its secret for a certificate. */
  exchange: '/v1/webapi/sso/console/exchange',
} as const;

/** 256 random bits, base64url: the secret, its SHA-256, the codes. */
const token = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be 32 bytes in base64url');

/**
 * The only place a code may be sent: plain HTTP on the loopback, with an explicit port (the
 * CLI's listener). Anything else would hand the code to whoever runs that host.
 */
export function isLoopbackRedirect(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    url.protocol === 'http:' &&
    (url.hostname === '127.0.0.1' || url.hostname === 'localhost') &&
    url.port !== '' &&
    url.username === '' &&
    url.password === '' &&
    url.hash === ''
  );
}

export const ssoConsoleLoginRequestSchema = z.object({
  connector_id: z.string().min(1).max(255),
  redirect_url: z
    .string()
    .max(2048)
    .refine(
      isLoopbackRedirect,
      'must be http://127.0.0.1:<port>/… or http://localhost:<port>/… (the CLI’s own listener)',
    ),
  /** base64url(SHA-256(secret)): the CLI shows the secret only at the exchange. */
  secret_hash: token,
  /** The key to certify, as in ssh/certs. */
  pub_key: z
    .string()
    .max(1024)
    .regex(/^ssh-ed25519 [A-Za-z0-9+/=]+( [^\n]*)?$/, 'must be an OpenSSH ssh-ed25519 public key'),
  /** Requested lifetime in milliseconds; capped by the roles' max_session_ttl. */
  ttl: z.number().int().positive().optional(),
});
export type SsoConsoleLoginRequest = z.infer<typeof ssoConsoleLoginRequestSchema>;

export const ssoConsoleLoginResponseSchema = z.object({
  /** On the proxy's public address: open it in a browser. */
  redirect_url: z.string(),
});
export type SsoConsoleLoginResponse = z.infer<typeof ssoConsoleLoginResponseSchema>;

export const ssoConsoleExchangeRequestSchema = z.object({
  code: token,
  secret: token,
});
export type SsoConsoleExchangeRequest = z.infer<typeof ssoConsoleExchangeRequestSchema>;
