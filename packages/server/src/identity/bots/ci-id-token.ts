import { jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { badParameter } from '../../errors.js';
import { assertSafeUrl, Discoveries, RemoteKeySets } from '../../sso/provider-http.js';
import type { BotOidcRule } from './bots.store.js';

/**
 * What a CI system's token service publishes: no authorization or token endpoint (GitHub
 * Actions' has none), only who it is and where its keys are.
 */
const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.string() });

/** Tolerated clock difference with the CI system when checking the token's times. */
const clockToleranceSec = 60;

/** Why a CI job's ID token was refused; the message names no value of the rule. */
export class IdTokenRefused extends Error {
  override name = 'IdTokenRefused';
}

/**
 * Checks a CI job's OpenID Connect ID token against a bot's rule: signed by a key the issuer
 * publishes (its discovery document, then its JWKS), issued by it, for the rule's audience,
 * not expired, and carrying every claim of the rule with the same value. Keys are jose's cached
 * remote key sets, fetched again when a token names a key they lack (a rotation).
 */
export class CiIdTokens {
  private readonly discoveries: Discoveries<z.infer<typeof discoverySchema>>;
  private readonly keySets = new RemoteKeySets();

  constructor(private readonly now: Clock) {
    this.discoveries = new Discoveries(now, discoverySchema, (doc) => assertSafeUrl(doc.jwks_uri));
  }

  async verify(rule: BotOidcRule, idToken: string): Promise<JWTPayload & { exp: number }> {
    const keys = await this.keysOf(rule.issuer);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: rule.issuer,
        audience: rule.audience,
        requiredClaims: ['exp', 'iat'],
        clockTolerance: clockToleranceSec,
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      throw new IdTokenRefused(`the ID token is not valid: ${(error as Error).message}`);
    }
    for (const [claim, wanted] of Object.entries(rule.claims)) {
      if (claimText(payload[claim]) !== wanted) {
        throw new IdTokenRefused(`the ID token's claim ${claim} does not match the bot's rule`);
      }
    }
    return payload as JWTPayload & { exp: number };
  }

  private async keysOf(issuer: string): Promise<JWTVerifyGetKey> {
    try {
      return this.keySets.at((await this.discoveries.get(issuer)).jwks_uri);
    } catch (error) {
      throw new IdTokenRefused(
        `the issuer's keys could not be read from ${issuer}: ${(error as Error).message}`,
      );
    }
  }
}

/** A claim as the rule compares it: strings as they are, numbers and booleans as text. */
function claimText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** An admin's rule, checked when the bot is made: https issuer, an audience, one claim at least. */
export function checkOidcRule(rule: BotOidcRule): BotOidcRule {
  try {
    assertSafeUrl(rule.issuer);
  } catch {
    throw badParameter(`oidc issuer ${rule.issuer}: must be an https URL`);
  }
  if (!rule.audience) throw badParameter('oidc audience: name the audience the CI job asks for');
  // Without a claim, every job of every repository on that CI system could join.
  if (Object.keys(rule.claims).length === 0) {
    throw badParameter(
      'oidc claims: name at least one, for example repository=acme/deploy, or any job on that CI system could join',
    );
  }
  return rule;
}
