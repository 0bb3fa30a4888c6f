import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';

/**
 * A FAKE of a CI system's ID token service (GitHub Actions' token.actions.githubusercontent.com,
 * GitLab's id_tokens), which cannot run here: on loopback it publishes a discovery document with
 * only `issuer` and `jwks_uri`, as GitHub's does, and its keys; `mint` signs the ID token a job
 * would get. `mintWithOtherKey` signs with a key it does not publish (a forged token).
 */
export async function startFakeCiTokenIssuer() {
  const key = await generateKeyPair('RS256', { extractable: true });
  const other = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(key.publicKey)), kid: 'ci-1', alg: 'RS256', use: 'sig' };
  const http = createServer((req, res) => {
    const body =
      req.url === '/.well-known/openid-configuration'
        ? { issuer, jwks_uri: `${issuer}/jwks` }
        : req.url === '/jwks'
          ? { keys: [jwk] }
          : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const sign = (privateKey: CryptoKey, claims: JWTPayload, options: MintOptions) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'ci-1' })
      .setIssuer(options.issuer ?? issuer)
      .setAudience(options.audience)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(Math.floor(Date.now() / 1000) + (options.expiresInSec ?? 300))
      .sign(privateKey);

  return {
    issuer,
    mint: (claims: JWTPayload, options: MintOptions) => sign(key.privateKey, claims, options),
    mintWithOtherKey: (claims: JWTPayload, options: MintOptions) =>
      sign(other.privateKey, claims, options),
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

export interface MintOptions {
  audience: string;
  /** Seconds from now; negative for a token that has expired. */
  expiresInSec?: number;
  issuer?: string;
}
