import { jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import {
  assertSafeUrl,
  Discoveries,
  providerRequestTimeoutMs,
  ProviderError,
  RemoteKeySets,
} from './provider-http.js';
import { SsoLoginError } from './sso-login.service.js';

/** The fields of an OpenID provider's discovery document this client uses. */
const discoverySchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  jwks_uri: z.string(),
  userinfo_endpoint: z.string().optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
});
export type OidcDiscovery = z.infer<typeof discoverySchema>;

const tokenResponseSchema = z.object({
  id_token: z.string(),
  token_type: z.string(),
  access_token: z.string().optional(),
});
const userInfoSchema = z.looseObject({ sub: z.string() });

/** Tolerated clock difference with the provider when checking the ID token's times. */
const clockToleranceSec = 60;

export interface OidcClientSettings {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/**
 * The relying party's side of OpenID Connect's authorization code flow with PKCE, over fetch.
 * Signatures and JWT checks are jose's; this holds only the protocol's rules. Providers must be
 * reached over https; plain http is accepted for loopback only (tests, a provider on the host).
 */
export class OidcClient {
  private readonly discoveries: Discoveries<OidcDiscovery>;
  private readonly keySets = new RemoteKeySets();

  constructor(private readonly now: Clock) {
    this.discoveries = new Discoveries(now, discoverySchema, (doc) => {
      const endpoints = [doc.authorization_endpoint, doc.token_endpoint, doc.jwks_uri];
      endpoints.concat(doc.userinfo_endpoint ?? []).forEach(assertSafeUrl);
    });
  }

  discover(issuerUrl: string): Promise<OidcDiscovery> {
    return this.discoveries.get(issuerUrl);
  }

  authorizationUrl(
    doc: OidcDiscovery,
    settings: OidcClientSettings,
    params: { state: string; nonce: string; codeChallenge: string; scope: string[] },
  ): string {
    const url = new URL(doc.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', settings.clientId);
    url.searchParams.set('redirect_uri', settings.redirectUri);
    url.searchParams.set(
      'scope',
      ['openid', ...params.scope.filter((s) => s !== 'openid')].join(' '),
    );
    url.searchParams.set('state', params.state);
    url.searchParams.set('nonce', params.nonce);
    url.searchParams.set('code_challenge', params.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }

  /**
   * Trades the code for tokens and returns the verified ID token's claims, with the UserInfo
   * endpoint's added when the provider has one: many providers (and OpenID Connect's default for
   * the code flow) put the profile, email and group claims only there.
   */
  async exchange(
    doc: OidcDiscovery,
    settings: OidcClientSettings,
    params: { code: string; codeVerifier: string; nonce: string },
  ): Promise<JWTPayload> {
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.code,
      redirect_uri: settings.redirectUri,
      code_verifier: params.codeVerifier,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    // RFC 6749 §2.3.1: basic unless the provider supports only post.
    const methods = doc.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    if (!methods.includes('client_secret_basic') && methods.includes('client_secret_post')) {
      body.set('client_id', settings.clientId);
      body.set('client_secret', settings.clientSecret);
    } else {
      const form = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
      const basic = Buffer.from(`${form(settings.clientId)}:${form(settings.clientSecret)}`);
      headers.authorization = `Basic ${basic.toString('base64')}`;
    }
    const response = await fetch(doc.token_endpoint, {
      method: 'POST',
      headers,
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(providerRequestTimeoutMs),
    });
    if (!response.ok) {
      throw new ProviderError(
        `token endpoint answered ${response.status}: ${await snippet(response)}`,
      );
    }
    const tokens = tokenResponseSchema.parse(await response.json());
    const claims = await this.verifyIdToken(doc, settings, tokens.id_token, params.nonce);
    if (!doc.userinfo_endpoint || !tokens.access_token) return claims;
    const userInfo = await this.userInfo(doc.userinfo_endpoint, tokens.access_token);
    // OpenID Connect Core §5.3.2: an answer about someone else must not be used.
    if (userInfo.sub !== claims.sub) {
      throw new ProviderError('the UserInfo answer is about another subject than the ID token');
    }
    // The signed ID token wins where both name a claim.
    return { ...userInfo, ...claims };
  }

  private async userInfo(endpoint: string, accessToken: string) {
    const response = await fetch(endpoint, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(providerRequestTimeoutMs),
    });
    if (!response.ok) {
      throw new ProviderError(`userinfo endpoint answered ${response.status}`);
    }
    // A signed (application/jwt) answer is only sent to clients registered for one.
    if (!/json/i.test(response.headers.get('content-type') ?? '')) {
      throw new ProviderError('the userinfo endpoint answered something other than JSON');
    }
    const parsed = userInfoSchema.safeParse(await response.json());
    if (!parsed.success) throw new ProviderError('the userinfo answer has no subject');
    return parsed.data;
  }

  private async verifyIdToken(
    doc: OidcDiscovery,
    settings: OidcClientSettings,
    idToken: string,
    nonce: string,
  ): Promise<JWTPayload> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.keySets.at(doc.jwks_uri), {
        issuer: doc.issuer,
        audience: settings.clientId,
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: clockToleranceSec,
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      throw new ProviderError(`ID token refused: ${(error as Error).message}`);
    }
    if (payload.nonce !== nonce)
      throw new SsoLoginError('the sign-in response does not match the request (nonce)');
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== settings.clientId) {
      throw new ProviderError('ID token for several audiences without this client as azp');
    }
    return payload;
  }
}

async function snippet(response: Response): Promise<string> {
  return (await response.text().catch(() => '')).slice(0, 200);
}
