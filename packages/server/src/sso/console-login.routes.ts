import {
  connectorKinds,
  ssoConsoleExchangeRequestSchema,
  ssoConsoleLoginRequestSchema,
  ssoConsolePaths,
  type SshCertsResponse,
  type SsoConsoleLoginResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { parseInput } from '../http/parse-input.js';
import { requestContext } from '../identity/auth/session-cookie.js';
import type { ConsoleLoginService } from './console-login.service.js';
import type { SamlFlowService } from './saml-flow.service.js';
import type { SsoFlow } from './sso-flow.js';
import { samlStateCookie, ssoStateCookieName, stateCookie, type SsoFailure } from './sso-http.js';
import { stateTtlMs } from './sso-state-ttl.js';

type Route = { config: { access: 'public'; rateLimit: { max: number; timeWindow: number } } };

/**
 * `postern login --auth` (docs/cli-login.md): the CLI's two calls and the link its browser
 * opens. All public and rate limited like sign-in. No CSRF check on the POSTs: they read and
 * set no cookie, so another site has no ambient credential to use.
 */
export function registerConsoleLogin(
  app: FastifyInstance,
  services: {
    console: ConsoleLoginService;
    flows: { oidc: SsoFlow; github: SsoFlow; saml: SamlFlowService };
  },
  route: Route,
  failure: SsoFailure,
) {
  const { console: consoleLogin, flows } = services;

  for (const kind of connectorKinds) {
    app.post(
      ssoConsolePaths.login(kind),
      route,
      async (request): Promise<SsoConsoleLoginResponse> =>
        consoleLogin.start(kind, parseInput(ssoConsoleLoginRequestSchema, request.body)),
    );

    // The browser's first step: the same state cookie and redirect as the console's login/web,
    // so the callback (and its cookie-bound state check) is the console's, unchanged.
    app.get<{ Params: { id: string } }>(
      `${ssoConsolePaths.login(kind)}/:id`,
      route,
      async (request, reply) => {
        let connector: string | undefined;
        try {
          const begin = await consoleLogin.open(kind, request.params.id);
          connector = begin.connector;
          const { location, state } = await flows[kind].begin(connector, undefined, begin.request);
          const cookie = kind === 'saml' ? samlStateCookie : stateCookie;
          reply.setCookie(ssoStateCookieName, state, { ...cookie, maxAge: stateTtlMs / 1000 });
          return reply.header('cache-control', 'no-store').redirect(location, 302);
        } catch (error) {
          return failure(request, reply, error, kind, connector, 'login');
        }
      },
    );
  }

  app.post(ssoConsolePaths.exchange, route, async (request): Promise<SshCertsResponse> => {
    const body = parseInput(ssoConsoleExchangeRequestSchema, request.body);
    return consoleLogin.exchange(body, requestContext(request));
  });
}
