import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import type { z } from 'zod';
import type { Clock } from '../clock.js';

/**
 * A provider's failure (an HTTP status, an error answer, a refused token), kept for the log.
 * The person is told only that the sign-in with the provider failed: no internals leak.
 */
export class ProviderError extends Error {
  override name = 'ProviderError';
}

/** https, or http to a loopback address: nothing else carries codes, tokens and secrets. */
export function assertSafeUrl(value: string): void {
  const url = new URL(value);
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ProviderError(`${value} is not https`);
  }
}

/** How long one request to a provider may take. */
export const providerRequestTimeoutMs = 10_000;
/** Discovery documents are re-read after this, so a provider's new endpoints are picked up. */
const discoveryTtlMs = 10 * 60 * 1000;

/** GETs a provider's JSON over a safe URL, following no redirect. */
export async function getProviderJson(url: string): Promise<unknown> {
  assertSafeUrl(url);
  const response = await fetch(url, {
    headers: { accept: 'application/json' },
    redirect: 'error',
    signal: AbortSignal.timeout(providerRequestTimeoutMs),
  });
  if (!response.ok) throw new ProviderError(`${url} answered ${response.status}`);
  return response.json();
}

/**
 * OpenID Connect discovery documents by issuer, each read from the issuer's well-known address,
 * checked to name that issuer and by `check` (which throws for a document not to be used), and
 * kept for a while. Single sign-on and the bots' CI issuers each read the fields they use.
 */
export class Discoveries<Doc extends { issuer: string }> {
  private readonly cache = new Map<string, { doc: Doc; at: number }>();

  constructor(
    private readonly now: Clock,
    private readonly schema: z.ZodType<Doc>,
    private readonly check: (doc: Doc) => void = () => {},
  ) {}

  async get(issuer: string): Promise<Doc> {
    const cached = this.cache.get(issuer);
    if (cached && this.now() - cached.at < discoveryTtlMs) return cached.doc;
    const url = `${withoutSlash(issuer)}/.well-known/openid-configuration`;
    const doc = this.schema.parse(await getProviderJson(url));
    if (withoutSlash(doc.issuer) !== withoutSlash(issuer)) {
      throw new ProviderError(`discovery names issuer ${doc.issuer}, not ${issuer}`);
    }
    this.check(doc);
    this.cache.set(issuer, { doc, at: this.now() });
    return doc;
  }
}

/**
 * jose's remote key sets by JWKS address, made once each: a set caches its keys and reads them
 * again when a token names a key it lacks (a rotation).
 */
export class RemoteKeySets {
  private readonly sets = new Map<string, JWTVerifyGetKey>();

  at(jwksUri: string): JWTVerifyGetKey {
    let keys = this.sets.get(jwksUri);
    if (!keys) {
      keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: providerRequestTimeoutMs });
      this.sets.set(jwksUri, keys);
    }
    return keys;
  }
}

function withoutSlash(url: string): string {
  return url.replace(/\/$/, '');
}
