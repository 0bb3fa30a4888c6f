import {
  agentPaths,
  apiPaths,
  createJoinTokenRequestSchema,
  installAppQuerySchema,
  installDatabaseQuerySchema,
  installDesktopQuerySchema,
  okBody,
  scriptPaths,
  type JoinTokenJson,
  type JoinTokenList,
  type JoinTokenRole,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { ApiError } from '../../../errors.js';
import { actorOf } from '../../../http/request-identity.js';
import { parseInput } from '../../../http/parse-input.js';
import {
  agentJoinRequestSchema,
  type AgentJoinResponse,
  type AgentJoinService,
} from './agent-join.service.js';
import { badInstallLinkScript, queryProblem } from './agent-install-script.js';
import { installAppScript } from './install-app-script.js';
import { installDatabaseScript } from './install-database-script.js';
import { installDesktopScript } from './install-desktop-script.js';
import { installNodeScript, invalidTokenScript } from './install-script.js';
import {
  configureAdScript,
  installAdCsScript,
  installAdDsScript,
  invalidTokenPowershell,
} from './windows-ad-scripts.js';
import {
  joinTokenJson,
  joinTokenListItem,
  type JoinTokensService,
} from '../../../modules/join-tokens/join-tokens.service.js';

interface JoinTokensRoutesOptions {
  joinTokens: JoinTokensService;
  agentJoin: AgentJoinService;
  /** Read per request: the script names the proxy's public URL. */
  /** The proxy's public base URL, as the listeners bound it. */
  publicBaseUrl: () => string;
  /** The same per-address limit as sign-in: these routes check a secret. */
  rateLimit: { max: number; timeWindow: number };
}

type ScriptParams = { Params: { token: string } };
type AgentScriptParams = ScriptParams & { Querystring: Record<string, unknown> };

/**
 * Join tokens (spec §7 `POST token`; reference §1.11), the agents' join call and the install
 * scripts. The join call and the scripts are public, outside `/v1/webapi/`: a host has a token,
 * not a session, and no browser calls them, so the CSRF check does not apply. They all check the
 * token and are rate limited per address, so a token cannot be guessed through them.
 */
export async function joinTokensRoutes(
  app: FastifyInstance,
  { joinTokens, agentJoin, publicBaseUrl, rateLimit }: JoinTokensRoutesOptions,
) {
  app.post(
    apiPaths.joinToken,
    { config: { access: { area: 'tokens', verb: 'create' } } },
    async (request): Promise<JoinTokenJson> => {
      const body = parseInput(createJoinTokenRequestSchema, request.body);
      const issued = await joinTokens.create(body, actorOf(request), { addr: request.ip });
      return joinTokenJson(issued);
    },
  );

  // Join Tokens: the live tokens the caller may read, and deleting one by its id.
  app.get(
    apiPaths.joinTokens,
    { config: { access: { area: 'tokens', verb: 'list' } } },
    async (request): Promise<JoinTokenList> => ({
      items: (await joinTokens.list(actorOf(request))).map(joinTokenListItem),
    }),
  );

  app.delete<{ Params: { id: string } }>(
    apiPaths.patterns.joinTokenById,
    { config: { access: { area: 'tokens', verb: 'remove' } } },
    async (request) => {
      await joinTokens.remove(request.params.id, actorOf(request));
      return okBody;
    },
  );

  app.post(
    agentPaths.join,
    { config: { access: 'public', rateLimit } },
    async (request): Promise<AgentJoinResponse> => {
      const body = parseInput(agentJoinRequestSchema, request.body);
      return agentJoin.join(body, request.ip);
    },
  );

  app.get<ScriptParams>(
    scriptPaths.patterns.installNode,
    { config: { access: 'public', rateLimit } },
    async (request, reply) => {
      // The script holds the token: no cache may keep it.
      reply.header('cache-control', 'no-store').type('text/x-shellscript; charset=utf-8');
      try {
        await joinTokens.validate(request.params.token, 'Node');
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return reply.code(404).send(invalidTokenScript);
      }
      const baseUrl = publicBaseUrl();
      return installNodeScript({ baseUrl, token: request.params.token });
    },
  );

  /**
   * A script that runs an agent serving one resource named in the query (`?name=&uri=`): the
   * token must grant its role (or Node: every agent serves its host too), and the query must
   * pass the schema, or the link serves a script that says why and fails.
   */
  function agentScript<Q extends z.ZodType<{ name: string; uri: string }>>(
    pattern: string,
    roles: readonly JoinTokenRole[],
    querySchema: Q,
    script: (options: { baseUrl: string; token: string } & z.output<Q>) => string,
  ) {
    app.get<AgentScriptParams>(
      pattern,
      { config: { access: 'public', rateLimit } },
      async (request, reply) => {
        reply.header('cache-control', 'no-store').type('text/x-shellscript; charset=utf-8');
        try {
          await joinTokens.validate(request.params.token, roles);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          return reply.code(404).send(invalidTokenScript);
        }
        const query = querySchema.safeParse(request.query);
        if (!query.success) {
          return reply.code(400).send(badInstallLinkScript(queryProblem(query.error)));
        }
        const baseUrl = publicBaseUrl();
        return script({ baseUrl, token: request.params.token, ...query.data });
      },
    );
  }

  agentScript(
    scriptPaths.patterns.installApp,
    ['App', 'Node'],
    installAppQuerySchema,
    installAppScript,
  );
  agentScript(
    scriptPaths.patterns.installDatabase,
    ['Db', 'Node'],
    installDatabaseQuerySchema,
    installDatabaseScript,
  );
  // Active Directory for desktop access (spec §7): PowerShell, for a WindowsDesktop token only.
  const adScripts: [string, () => string][] = [
    [scriptPaths.patterns.installAdDs, installAdDsScript],
    [scriptPaths.patterns.installAdCs, installAdCsScript],
    [scriptPaths.patterns.configureAd, () => configureAdScript({ baseUrl: publicBaseUrl() })],
  ];
  for (const [pattern, script] of adScripts) {
    app.get<ScriptParams>(
      pattern,
      { config: { access: 'public', rateLimit } },
      async (request, reply) => {
        reply.header('cache-control', 'no-store').type('text/plain; charset=utf-8');
        try {
          await joinTokens.validate(request.params.token, 'WindowsDesktop');
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          return reply.code(404).send(invalidTokenPowershell);
        }
        return script();
      },
    );
  }

  agentScript(
    scriptPaths.patterns.installDesktop,
    ['WindowsDesktop', 'Node'],
    installDesktopQuerySchema,
    installDesktopScript,
  );
}
