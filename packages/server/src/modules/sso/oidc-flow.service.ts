import { createHash, randomBytes } from 'node:crypto';
import { ssoPaths, type OidcConnector } from '@postern/contracts';
import type { RequestContext } from '../auth/session-cookie.js';
import type { ConnectorsService } from '../connectors/connectors.service.js';
import type { WebSession } from '../web-sessions/web-sessions.service.js';
import { claimValues, globMatch, mapRoles, traitsFromClaims } from './mapping.js';
import type { OidcClient, OidcClientSettings } from './oidc.client.js';
import { safeRedirect } from './redirect.js';
import type { SsoStateStore } from './sso-state.store.js';
import { SsoLoginError, type SsoLoginService } from './sso-login.service.js';

export interface OidcFlowDeps {
  connectors: ConnectorsService;
  states: SsoStateStore;
  client: OidcClient;
  login: SsoLoginService;
  /** `https://public_addr`: the default callback and the only origin a redirect may name. */
  publicBase: string;
}

export interface CallbackQuery {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

/**
 * OpenID Connect sign-in (issue 8): `begin` sends the browser to the provider with a state,
 * a nonce and a PKCE challenge; `complete` takes it back, checks all three, maps the ID token's
 * claims and hands over to the shared SSO sign-in.
 */
export class OidcFlowService {
  constructor(private readonly deps: OidcFlowDeps) {}

  /** Returns the provider's URL and the state id the browser must carry back in a cookie. */
  async begin(connectorName: string, redirectUrl: string | undefined) {
    const connector = await this.connector(connectorName, 'login');
    const settings = this.settings(connector);
    const doc = await this.deps.client.discover(settings.issuerUrl);
    const codeVerifier = b64url(randomBytes(32));
    const nonce = b64url(randomBytes(32));
    const state = await this.deps.states.create({
      kind: 'oidc',
      connector: connector.metadata.name,
      redirect: safeRedirect(redirectUrl, this.deps.publicBase),
      nonce,
      codeVerifier,
    });
    const codeChallenge = b64url(createHash('sha256').update(codeVerifier).digest());
    const location = this.deps.client.authorizationUrl(doc, settings, {
      state,
      nonce,
      codeChallenge,
      scope: connector.spec.scope,
    });
    return { location, state };
  }

  /**
   * The provider's answer. The state must match the cookie set by `begin` (so nobody can make
   * a browser finish a sign-in it did not start) and exist unused on the server (single use).
   */
  async complete(
    query: CallbackQuery,
    stateCookie: string | undefined,
    ctx: RequestContext,
  ): Promise<{ session: WebSession; redirect: string }> {
    if (!query.state || !stateCookie || query.state !== stateCookie) {
      throw new SsoLoginError('the sign-in response does not match this browser: start again');
    }
    const state = await this.deps.states.consume(query.state);
    if (!state || state.kind !== 'oidc' || !state.nonce || !state.codeVerifier) {
      throw new SsoLoginError('the sign-in expired or was already used: start again');
    }
    if (query.error) {
      throw new SsoLoginError(`the identity provider refused the sign-in: ${describeError(query)}`);
    }
    if (!query.code) throw new SsoLoginError('the identity provider sent no authorization code');
    const connector = await this.connector(state.connector, 'callback');
    const settings = this.settings(connector);
    const doc = await this.deps.client.discover(settings.issuerUrl);
    const claims = await this.deps.client.exchange(doc, settings, {
      code: query.code,
      codeVerifier: state.codeVerifier,
      nonce: state.nonce,
    });
    const [username] = claimValues(claims, connector.spec.username_claim);
    if (!username) {
      throw new SsoLoginError(
        `the identity provider did not send the ${connector.spec.username_claim} claim that names the user`,
      );
    }
    const roles = mapRoles(connector.spec.claims_to_roles, (rule) =>
      claimValues(claims, rule.claim).some((value) => globMatch(rule.value, value)),
    );
    const traits = traitsFromClaims(connector.spec.claims_to_traits, claims);
    const session = await this.deps.login.signIn(
      { kind: 'oidc', connector: connector.metadata.name, username, roles, traits },
      ctx,
    );
    return { session, redirect: state.redirect };
  }

  private async connector(name: string, stage: 'login' | 'callback'): Promise<OidcConnector> {
    const connector = name ? await this.deps.connectors.forLogin('oidc', name) : null;
    if (!connector || connector.kind !== 'oidc') {
      throw new SsoLoginError(
        `there is no OIDC connector named ${JSON.stringify(name.slice(0, 64))}`,
        stage,
      );
    }
    return connector;
  }

  private settings(connector: OidcConnector): OidcClientSettings {
    return {
      issuerUrl: connector.spec.issuer_url,
      clientId: connector.spec.client_id,
      clientSecret: connector.spec.client_secret,
      redirectUri: connector.spec.redirect_url ?? this.deps.publicBase + ssoPaths.callback('oidc'),
    };
  }
}

/** The provider's error code (and description), cut short: it is shown to the person. */
function describeError(query: CallbackQuery): string {
  const text = query.error_description ? `${query.error}: ${query.error_description}` : query.error;
  // eslint-disable-next-line no-control-regex
  return (text ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 200);
}
