import { createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';

/**
 * Who a root forwards to a leaf: a short JWT (EdDSA) the root signs with its forwarded-identity
 * key, addressed to one leaf. The leaf trusts it only from the tunnel and only under the key the
 * root gave when it accepted the leaf; the roles are the root's, mapped by the leaf.
 */
export interface ForwardedIdentity {
  user: string;
  /** The user's roles on the root. */
  roles: string[];
  traits: Record<string, string[]>;
  /** Until when the leaf may let this identity in: never past the root's own session. */
  expires: Date;
  /**
   * The root's roles ask for a per-session MFA check (require_session_mfa): the leaf asks for
   * one too, whatever its own roles say, so a hop to a leaf is no way around the root's rule.
   */
  sessionMfa?: boolean;
}

const claimsSchema = z.object({
  sub: z.string().min(1).max(255),
  roles: z.array(z.string().max(128)).max(256),
  traits: z.record(z.string(), z.array(z.string().max(1024)).max(256)),
  session_mfa: z.boolean().optional(),
});

export async function signForwardedIdentity(
  identity: ForwardedIdentity,
  options: { key: KeyObject; root: string; leaf: string },
): Promise<string> {
  const claims = {
    roles: identity.roles,
    traits: identity.traits,
    ...(identity.sessionMfa ? { session_mfa: true } : {}),
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA' })
    .setSubject(identity.user)
    .setIssuer(options.root)
    .setAudience(options.leaf)
    .setIssuedAt()
    .setExpirationTime(Math.floor(identity.expires.getTime() / 1000))
    .sign(options.key);
}

/** The root's claims if `token` is one it signed for this leaf and it has not expired. */
export async function verifyForwardedIdentity(
  token: string,
  options: { rootKeyPem: string; root: string; leaf: string; now: number },
): Promise<ForwardedIdentity> {
  const payload = await payloadFromRoot(token, options);
  const claims = claimsSchema.parse(payload);
  return {
    user: claims.sub,
    roles: claims.roles,
    traits: claims.traits,
    expires: new Date((payload.exp ?? 0) * 1000),
    ...(claims.session_mfa ? { sessionMfa: true } : {}),
  };
}

/**
 * A root's word that its user passed a per-session MFA check for `check`: a leaf's challenge
 * (its nonce, on a terminal socket) or the leaf's subject of a console call (`web <session>
 * files:<server>`). Signed with the same key as identities, told apart by `purpose`, so neither
 * passes for the other; it lives a minute (leaf-checks.ts).
 */
export async function signRootAssertion(
  claims: { user: string; check: string },
  options: { key: KeyObject; root: string; leaf: string },
): Promise<string> {
  return (
    new SignJWT({ purpose: assertionPurpose, check: claims.check })
      .setProtectedHeader({ alg: 'EdDSA' })
      // Its id: a leaf takes a word the root vouches with once (leaf-checks.ts).
      .setJti(randomBytes(16).toString('base64url'))
      .setSubject(claims.user)
      .setIssuer(options.root)
      .setAudience(options.leaf)
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(options.key)
  );
}

const assertionPurpose = 'session_mfa';
const assertionSchema = z.object({
  sub: z.string().min(1).max(255),
  purpose: z.literal(assertionPurpose),
  check: z.string().min(1).max(512),
  jti: z.string().min(16).max(64),
  exp: z.number(),
});

/** What an assertion `root` signed for this leaf says, if it checks out: who, which check, its id. */
export async function verifyRootAssertion(
  token: string,
  options: { rootKeyPem: string; root: string; leaf: string; now: number },
): Promise<{ user: string; check: string; id: string; expires: Date }> {
  const claims = assertionSchema.parse(await payloadFromRoot(token, options));
  return {
    user: claims.sub,
    check: claims.check,
    id: claims.jti,
    expires: new Date(claims.exp * 1000),
  };
}

/** What `root` signed for this leaf, once its signature, issuer, audience and times check out. */
async function payloadFromRoot(
  token: string,
  options: { rootKeyPem: string; root: string; leaf: string; now: number },
) {
  const { payload } = await jwtVerify(token, createPublicKey(options.rootKeyPem), {
    algorithms: ['EdDSA'],
    issuer: options.root,
    audience: options.leaf,
    currentDate: new Date(options.now),
  });
  return payload;
}
