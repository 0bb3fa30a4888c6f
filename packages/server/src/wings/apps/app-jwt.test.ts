import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../backend/memory.js';
import { AppJwtSigner, rotateAppJwtKey } from './app-jwt.js';

const claims = {
  user: 'alice',
  roles: ['access'],
  traits: {},
  audience: 'https://grafana.proxy.test',
  sessionEndsMs: Date.now() + 3600_000,
};

const headerOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string };

/** Whether `token` verifies under the JWKS key its header names. */
function verifies(token: string, keys: (JsonWebKey & { kid: string })[]): boolean {
  const key = keys.find((each) => each.kid === headerOf(token).kid);
  if (!key) return false;
  const [head, body, signature] = token.split('.');
  return verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    { key: createPublicKey({ key, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature!, 'base64url'),
  );
}

describe('the app JWT key', () => {
  it('is shared by every proxy on one storage', async () => {
    const backend = new MemoryBackend();
    const [a, b] = [
      new AppJwtSigner(backend, () => 'https://a'),
      new AppJwtSigner(backend, () => 'https://b'),
    ];
    await Promise.all([a.start(), b.start()]);
    expect(a.jwks()).toEqual(b.jwks());
    expect(verifies(a.token(claims), b.jwks().keys)).toBe(true);
    a.stop();
    b.stop();
  });

  it('rotates: proxies sign with the new key once they refresh, the old one stays published, then leaves', async () => {
    const backend = new MemoryBackend();
    let now = Date.now();
    const signer = new AppJwtSigner(
      backend,
      () => 'https://proxy',
      () => now,
    );
    await signer.start();
    const before = signer.token(claims);

    const { previousKid, kid } = await rotateAppJwtKey(backend, () => now);
    expect(previousKid).toBe(headerOf(before).kid);
    expect(kid).not.toBe(previousKid);
    await signer.refresh();
    const after = signer.token(claims);
    expect(headerOf(after).kid).toBe(kid);
    // Both verify against the JWKS an app fetches now: the old token is still good until it expires.
    const { keys } = signer.jwks();
    expect(keys.map((key) => key.kid)).toEqual([kid, previousKid]);
    expect(verifies(before, keys)).toBe(true);
    expect(verifies(after, keys)).toBe(true);

    // Past twice a token's lifetime, the old key is gone from the JWKS.
    now += 21 * 60_000;
    expect(signer.jwks().keys.map((key) => key.kid)).toEqual([kid]);
    signer.stop();
  });
});
