import type { Backend } from '../backend/index.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import type { AuditStore } from '../modules/audit/index.js';
import type { ConnectorsService } from '../access-control/connectors/connectors.service.js';
import type { LockView } from '../access-control/locks/lock-watcher.js';
import type { LoginRulesService } from '../access-control/login-rules/login-rules.service.js';
import type { CertIssuer } from '../identity/cli-login/cert-issuer.js';
import {
  ConsoleLoginService,
  consoleBeginTtlMs,
  consoleCodeTtlMs,
  type ConsoleBegin,
  type ConsoleCode,
} from './console-login.service.js';
import { OneTimeStore } from './one-time.store.js';
import { GithubClient } from './github.client.js';
import { GithubFlowService } from './github-flow.service.js';
import { OidcClient } from './oidc.client.js';
import { OidcFlowService } from './oidc-flow.service.js';
import { SamlFlowService } from './saml-flow.service.js';
import { SamlRequestStore } from './saml-requests.store.js';
import type { SsoLanding } from './sso-flow.js';
import { SsoLoginService } from './sso-login.service.js';
import { SsoStateStore } from './sso-state.store.js';
import type { UsersStore } from '../identity/users/users.store.js';
import type { WebSessionService } from '../identity/web-sessions/web-sessions.service.js';

export interface SsoDeps {
  config: Config;
  /** The proxy's public base URL, as the listeners bound it. */
  publicBaseUrl: () => string;
  backend: Backend;
  audit: AuditStore;
  now: Clock;
  connectors: ConnectorsService;
  /** Rewrite each sign-in's traits (docs/sso.md, "Login rules"). */
  loginRules: Pick<LoginRulesService, 'apply'>;
  users: UsersStore;
  sessions: WebSessionService;
  locks: LockView;
  /** For `postern login --auth`: the certificates ssh/certs issues. */
  issuer: CertIssuer;
}

/** The single sign-on flows (OIDC, SAML, GitHub), over the connectors and the web sessions. */
export function buildSso(deps: SsoDeps) {
  const login = new SsoLoginService(deps);
  const states = new SsoStateStore(deps.backend, deps.now);
  // Read at each use: with `--web-addr :0` the port is known only once the server listens.
  const publicBase = deps.publicBaseUrl;
  const consoleLogin = new ConsoleLoginService({
    connectors: deps.connectors,
    login,
    begins: new OneTimeStore<ConsoleBegin>(
      deps.backend,
      deps.now,
      '/sso_console_begins/',
      consoleBeginTtlMs,
    ),
    codes: new OneTimeStore<ConsoleCode>(
      deps.backend,
      deps.now,
      '/sso_console_codes/',
      consoleCodeTtlMs,
    ),
    issuer: deps.issuer,
    users: deps.users,
    publicBase,
    now: deps.now,
  });
  // A state the CLI started ends with a code for its loopback; any other with a web session.
  const land: SsoLanding = async (identity, state, ctx) =>
    state.console
      ? consoleLogin.handOver(identity, state.console, ctx)
      : { session: await login.signIn(identity, ctx), redirect: state.redirect };
  const common = { connectors: deps.connectors, states, land, publicBase };
  const flows = {
    oidc: new OidcFlowService({ ...common, client: new OidcClient(deps.now) }),
    github: new GithubFlowService({ ...common, client: new GithubClient() }),
  };
  const saml = new SamlFlowService({ ...common, requests: new SamlRequestStore(deps.backend) });
  return { login, states, flows, saml, console: consoleLogin };
}

export type SsoServices = ReturnType<typeof buildSso>;
