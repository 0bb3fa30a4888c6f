import { ssoPaths, type OidcConnector } from '@postern/contracts';
import type { RequestContext } from '../identity/auth/session-cookie.js';
import type { ConnectorsService } from '../access-control/connectors/connectors.service.js';
import { claimValues, globMatch, mapRoles, traitsFromClaims } from './mapping.js';
import type { OidcClient, OidcClientSettings } from './oidc.client.js';
import { safeRedirect } from './redirect.js';
import {
  forConnector,
  loginConnector,
  pkcePair,
  randomToken,
  takeState,
  type CallbackQuery,
  type SsoFlow,
  type SsoLanding,
  type SsoOutcome,
} from './sso-flow.js';
import type { ConsoleRequest, SsoStateStore } from './sso-state.store.js';
import { SsoLoginError } from './sso-login.service.js';

export interface OidcFlowDeps {
  connectors: ConnectorsService;
  states: SsoStateStore;
  client: OidcClient;
  land: SsoLanding;
  /** `https://public_addr`: the default callback and the only origin a redirect may name. */
  publicBase: () => string;
}

/**
 * OpenID Connect sign-in: `begin` sends the browser to the provider with a state,
 * a nonce and a PKCE challenge; `complete` takes it back, checks all three, maps the ID token's
 * claims and hands over to the shared SSO sign-in.
 */
export class OidcFlowService implements SsoFlow {
  constructor(private readonly deps: OidcFlowDeps) {}

  /** Returns the provider's URL and the state id the browser must carry back in a cookie. */
  async begin(connectorName: string, redirectUrl: string | undefined, cli?: ConsoleRequest) {
    const connector = await this.connector(connectorName, 'login');
    const settings = this.settings(connector);
    const doc = await this.deps.client.discover(settings.issuerUrl);
    const { verifier: codeVerifier, challenge: codeChallenge } = pkcePair();
    const nonce = randomToken();
    const state = await this.deps.states.create({
      kind: 'oidc',
      connector: connector.metadata.name,
      redirect: safeRedirect(redirectUrl, this.deps.publicBase()),
      ...(cli ? { console: cli } : {}),
      nonce,
      codeVerifier,
    });
    const location = this.deps.client.authorizationUrl(doc, settings, {
      state,
      nonce,
      codeChallenge,
      scope: connector.spec.scope,
    });
    return { location, state };
  }

  /** The provider's answer: the state checks, the code for a verified ID token, the mapping. */
  async complete(
    query: CallbackQuery,
    stateCookie: string | undefined,
    ctx: RequestContext,
  ): Promise<SsoOutcome> {
    const state = await takeState(this.deps.states, 'oidc', query, stateCookie);
    return forConnector(state.connector, () => this.finish(state, ctx));
  }

  private async finish(
    state: Awaited<ReturnType<typeof takeState>>,
    ctx: RequestContext,
  ): Promise<SsoOutcome> {
    if (!state.nonce)
      throw new SsoLoginError('the sign-in expired or was already used: start again');
    const connector = await this.connector(state.connector, 'callback');
    const settings = this.settings(connector);
    const doc = await this.deps.client.discover(settings.issuerUrl);
    const claims = await this.deps.client.exchange(doc, settings, {
      code: state.code,
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
    return this.deps.land(
      { kind: 'oidc', connector: connector.metadata.name, username, roles, traits },
      state,
      ctx,
    );
  }

  private connector(name: string, stage: 'login' | 'callback'): Promise<OidcConnector> {
    return loginConnector(this.deps.connectors, 'oidc', name, stage);
  }

  private settings(connector: OidcConnector): OidcClientSettings {
    return {
      issuerUrl: connector.spec.issuer_url,
      clientId: connector.spec.client_id,
      clientSecret: connector.spec.client_secret,
      redirectUri:
        connector.spec.redirect_url ?? this.deps.publicBase() + ssoPaths.callback('oidc'),
    };
  }
}
