import type { Backend } from './backend/index.js';
import type { Clock } from './clock.js';
import type { Config } from './config/config.js';
import { publicBaseUrl } from './config/public-url.js';
import type { AuditStore } from './modules/audit/index.js';
import type { ConnectorsService } from './modules/connectors/connectors.service.js';
import type { LockView } from './modules/locks/lock-watcher.js';
import { GithubClient } from './modules/sso/github.client.js';
import { GithubFlowService } from './modules/sso/github-flow.service.js';
import { OidcClient } from './modules/sso/oidc.client.js';
import { OidcFlowService } from './modules/sso/oidc-flow.service.js';
import { SamlFlowService } from './modules/sso/saml-flow.service.js';
import { SamlRequestStore } from './modules/sso/saml-requests.store.js';
import { SsoLoginService } from './modules/sso/sso-login.service.js';
import { SsoStateStore } from './modules/sso/sso-state.store.js';
import type { UsersStore } from './modules/users/users.store.js';
import type { WebSessionService } from './modules/web-sessions/web-sessions.service.js';

export interface SsoDeps {
  config: Config;
  backend: Backend;
  audit: AuditStore;
  now: Clock;
  connectors: ConnectorsService;
  users: UsersStore;
  sessions: WebSessionService;
  locks: LockView;
}

/** The single sign-on flows of issue 8, over the connectors and the web sessions. */
export function buildSso(deps: SsoDeps) {
  const login = new SsoLoginService(deps);
  const states = new SsoStateStore(deps.backend, deps.now);
  const common = {
    connectors: deps.connectors,
    states,
    login,
    // Read at each use: with `--web-addr :0` the port is known only once the server listens.
    publicBase: () => publicBaseUrl(deps.config),
  };
  const flows = {
    oidc: new OidcFlowService({ ...common, client: new OidcClient(deps.now) }),
    github: new GithubFlowService({ ...common, client: new GithubClient() }),
  };
  const saml = new SamlFlowService({ ...common, requests: new SamlRequestStore(deps.backend) });
  return { login, states, flows, saml };
}

export type SsoServices = ReturnType<typeof buildSso>;
