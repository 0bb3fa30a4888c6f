import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { AlreadyExistsError, type Backend } from '../../backend/index.js';
import { systemClock, type Clock } from '../../clock.js';

/** A JWT lives this long at most; the proxy signs a fresh one before it runs low. */
const jwtTtlMs = 10 * 60_000;
/** Signed tokens are reused for this long (a page load is dozens of requests). */
const reuseMs = 60_000;

const keyName = '/app_jwt_keys/current';
/** The key before the last rotation: public only, in the JWKS until its last token has expired. */
const previousKeyName = '/app_jwt_keys/previous';
/** How long a rotated-out key stays published: past the expiry of anything it signed. */
const previousKeptMs = 2 * jwtTtlMs;
/** How often each proxy looks for a rotation another process made. */
const refreshMs = 30_000;

interface StoredKey {
  /** PKCS#8 PEM of the P-256 private key. */
  privateKey: string;
  created: string;
}

interface StoredPreviousKey {
  jwk: PublishedKey;
  /** RFC 3339: when it leaves the JWKS. */
  expires: string;
}

type PublishedKey = JsonWebKey & { kid: string; alg: 'ES256'; use: 'sig' };

export interface AppJwtClaims {
  user: string;
  roles: string[];
  traits: Record<string, string[]>;
  /** The app's origin, `https://<host>`: the token's audience. */
  audience: string;
  /** ms: the token never outlives the app session. */
  sessionEndsMs: number;
}

/** A JSON Web Key Set as `/.well-known/jwks.json` serves it. */
export interface Jwks {
  keys: PublishedKey[];
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * Signs the identity every request to an app carries (docs/apps.md, "Identity for the app"): an
 * ES256 JWT with the user, their roles and traits, and a short expiry, under a key kept in
 * storage so every proxy on it signs with the same one; its public half is the JWKS. After a
 * rotation (`postern apps jwt rotate`) every proxy signs with the new key within `refreshMs`, and
 * the JWKS publishes the old one too until nothing it signed can still be valid.
 */
export class AppJwtSigner {
  private key: KeyObject | undefined;
  private kid = '';
  private jwk: PublishedKey | undefined;
  private previous: StoredPreviousKey | undefined;
  private readonly recent = new Map<string, { token: string; until: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly backend: Backend,
    private readonly issuer: () => string,
    private readonly now: Clock = systemClock,
  ) {}

  /** Loads the signing key, making it on first use (one proxy wins; the others load it). */
  async start(): Promise<void> {
    if (!(await this.backend.get(keyName))) {
      try {
        await this.backend.create({ key: keyName, value: JSON.stringify(newKey(this.now())) });
      } catch (error) {
        if (!(error instanceof AlreadyExistsError)) throw error;
      }
    }
    await this.refresh();
    this.timer ??= setInterval(() => void this.refresh().catch(() => undefined), refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the keys again: a rotation made elsewhere takes effect here. */
  async refresh(): Promise<void> {
    const item = await this.backend.get(keyName);
    if (!item) throw new Error('the app JWT key could not be read back');
    const stored = JSON.parse(item.value) as StoredKey;
    const key = createPrivateKey(stored.privateKey);
    const jwk = publishedKey(key);
    if (jwk.kid !== this.kid) {
      this.key = key;
      this.kid = jwk.kid;
      this.jwk = jwk;
      // Tokens signed with the old key are not handed out again.
      this.recent.clear();
    }
    const previous = await this.backend.get(previousKeyName);
    this.previous = previous ? (JSON.parse(previous.value) as StoredPreviousKey) : undefined;
  }

  jwks(): Jwks {
    const keys = this.jwk ? [this.jwk] : [];
    const previous = this.previous;
    if (previous && Date.parse(previous.expires) > this.now() && previous.jwk.kid !== this.kid) {
      keys.push(previous.jwk);
    }
    return { keys };
  }

  /** A token for these claims: a recent one again, or a new one. */
  token(claims: AppJwtClaims): string {
    const now = this.now();
    const cacheKey = JSON.stringify([claims.user, claims.roles, claims.traits, claims.audience]);
    const recent = this.recent.get(cacheKey);
    if (recent && recent.until > now) return recent.token;
    const expires = Math.min(now + jwtTtlMs, claims.sessionEndsMs);
    const token = this.sign({
      iss: this.issuer(),
      sub: claims.user,
      aud: [claims.audience],
      username: claims.user,
      roles: claims.roles,
      traits: claims.traits,
      iat: Math.floor(now / 1000),
      nbf: Math.floor(now / 1000) - 30,
      exp: Math.floor(expires / 1000),
    });
    if (this.recent.size > 10_000) this.recent.clear();
    this.recent.set(cacheKey, { token, until: Math.min(now + reuseMs, expires - 30_000) });
    return token;
  }

  private sign(payload: object): string {
    if (!this.key) throw new Error('the app JWT signer is not started');
    const head = base64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: this.kid }));
    const body = base64url(JSON.stringify(payload));
    const signature = sign('sha256', Buffer.from(`${head}.${body}`), {
      key: this.key,
      dsaEncoding: 'ieee-p1363',
    });
    return `${head}.${body}.${base64url(signature)}`;
  }
}

/**
 * `postern apps jwt rotate`: a new signing key for every proxy on this storage. The old key's
 * public half stays in the JWKS until the tokens it signed have expired. Returns both key ids.
 */
export async function rotateAppJwtKey(
  backend: Backend,
  now: Clock = systemClock,
): Promise<{ previousKid: string | undefined; kid: string }> {
  const current = await backend.get(keyName);
  let previousKid: string | undefined;
  if (current) {
    const jwk = publishedKey(createPrivateKey((JSON.parse(current.value) as StoredKey).privateKey));
    previousKid = jwk.kid;
    const expires = new Date(now() + previousKeptMs);
    const previous: StoredPreviousKey = { jwk, expires: expires.toISOString() };
    await backend.upsert({ key: previousKeyName, value: JSON.stringify(previous), expires });
  }
  const next = newKey(now());
  await backend.upsert({ key: keyName, value: JSON.stringify(next) });
  return { previousKid, kid: publishedKey(createPrivateKey(next.privateKey)).kid };
}

function newKey(now: number): StoredKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    created: new Date(now).toISOString(),
  };
}

/** A P-256 SubjectPublicKeyInfo up to its uncompressed point (04, x, y). */
const P256_SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');

/**
 * The public JWK, read from DER: Node 20 can deadlock exporting a JWK (ssh/ed25519-der.ts).
 */
function publishedKey(key: KeyObject): PublishedKey {
  const der = createPublicKey(key).export({ format: 'der', type: 'spki' });
  const point = der.subarray(P256_SPKI_PREFIX.length);
  if (
    !der.subarray(0, P256_SPKI_PREFIX.length).equals(P256_SPKI_PREFIX) ||
    point.length !== 65 ||
    point[0] !== 0x04
  )
    throw new Error('the app JWT key is not a P-256 key');
  const publicJwk = {
    kty: 'EC',
    crv: 'P-256',
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33).toString('base64url'),
  };
  return { ...publicJwk, kid: thumbprint(publicJwk), alg: 'ES256', use: 'sig' };
}

/** RFC 7638: the SHA-256 of the key's required members in lexical order. */
function thumbprint(jwk: JsonWebKey): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}
