import { ssoPaths, type GithubConnector } from '@postern/contracts';
import type { RequestContext } from '../identity/auth/session-cookie.js';
import type { ConnectorsService } from '../access-control/connectors/connectors.service.js';
import type { GithubClient, GithubEndpoints } from './github.client.js';
import { globMatch, mapRoles } from './mapping.js';
import { safeRedirect } from './redirect.js';
import {
  forConnector,
  loginConnector,
  pkcePair,
  takeState,
  type CallbackQuery,
  type SsoFlow,
  type SsoLanding,
  type SsoOutcome,
} from './sso-flow.js';
import type { ConsoleRequest, SsoStateStore } from './sso-state.store.js';

export interface GithubFlowDeps {
  connectors: ConnectorsService;
  states: SsoStateStore;
  client: GithubClient;
  land: SsoLanding;
  publicBase: () => string;
}

/**
 * GitHub sign-in: OAuth's web flow with a state and PKCE, then the person's login and
 * teams from the API; `teams_to_roles` maps teams to roles. The GitHub login is the user name
 * and their first login trait; `github_teams` lists `org/team` for role templates.
 */
export class GithubFlowService implements SsoFlow {
  constructor(private readonly deps: GithubFlowDeps) {}

  async begin(connectorName: string, redirectUrl: string | undefined, cli?: ConsoleRequest) {
    const connector = await this.connector(connectorName, 'login');
    const { verifier, challenge } = pkcePair();
    const state = await this.deps.states.create({
      kind: 'github',
      connector: connector.metadata.name,
      redirect: safeRedirect(redirectUrl, this.deps.publicBase()),
      ...(cli ? { console: cli } : {}),
      codeVerifier: verifier,
    });
    const location = this.deps.client.authorizationUrl(endpointsOf(connector), {
      clientId: connector.spec.client_id,
      redirectUri: this.redirectUri(connector),
      state,
      codeChallenge: challenge,
    });
    return { location, state };
  }

  async complete(
    query: CallbackQuery,
    stateCookie: string | undefined,
    ctx: RequestContext,
  ): Promise<SsoOutcome> {
    const state = await takeState(this.deps.states, 'github', query, stateCookie);
    return forConnector(state.connector, () => this.finish(state, ctx));
  }

  private async finish(
    state: Awaited<ReturnType<typeof takeState>>,
    ctx: RequestContext,
  ): Promise<SsoOutcome> {
    const connector = await this.connector(state.connector, 'callback');
    const endpoints = endpointsOf(connector);
    const token = await this.deps.client.exchange(endpoints, {
      clientId: connector.spec.client_id,
      clientSecret: connector.spec.client_secret,
      code: state.code,
      redirectUri: this.redirectUri(connector),
      codeVerifier: state.codeVerifier,
    });
    const [login, teams] = await Promise.all([
      this.deps.client.user(endpoints, token),
      this.deps.client.teams(endpoints, token),
    ]);
    const roles = mapRoles(connector.spec.teams_to_roles, (rule) =>
      teams.some(
        (t) => globMatch(rule.organization, t.organization) && globMatch(rule.team, t.team),
      ),
    );
    const traits = {
      logins: [login],
      github_teams: teams.map((t) => `${t.organization}/${t.team}`),
    };
    return this.deps.land(
      { kind: 'github', connector: connector.metadata.name, username: login, roles, traits },
      state,
      ctx,
    );
  }

  private connector(name: string, stage: 'login' | 'callback'): Promise<GithubConnector> {
    return loginConnector(this.deps.connectors, 'github', name, stage);
  }

  private redirectUri(connector: GithubConnector): string {
    return connector.spec.redirect_url ?? this.deps.publicBase() + ssoPaths.callback('github');
  }
}

const endpointsOf = (connector: GithubConnector): GithubEndpoints => ({
  endpointUrl: connector.spec.endpoint_url,
  apiEndpointUrl: connector.spec.api_endpoint_url,
});
