import {
  apiPaths,
  botJoinRequestSchema,
  botRenewRequestSchema,
  type SshCertsResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../http/parse-input.js';
import type { CertRequestAuth } from '../cli-login/cert-request-auth.js';
import type { BotIdentityService } from './bot-identity.service.js';

export interface BotsRoutesOptions {
  botIdentity: BotIdentityService;
  certAuth: Pick<CertRequestAuth, 'identify'>;
  loginRateLimit: { max: number; timeWindow: number };
}

/**
 * The calls `postern bot start` makes (docs/bots.md). Neither has a web session: joining is
 * proven by the token (and limited like sign-in, against guessing), renewing by a signature with
 * the bot's current certificate. No CSRF check: no cookie is involved.
 */
export async function botsRoutes(app: FastifyInstance, options: BotsRoutesOptions) {
  const { botIdentity, certAuth } = options;

  app.post(
    apiPaths.botJoin,
    { config: { access: 'public', rateLimit: options.loginRateLimit } },
    async (request): Promise<SshCertsResponse> =>
      botIdentity.join(parseInput(botJoinRequestSchema, request.body), request.ip),
  );

  app.post(
    apiPaths.botRenew,
    { config: { access: 'public' } },
    async (request): Promise<SshCertsResponse> => {
      const signer = await certAuth.identify(request);
      return botIdentity.renew(signer, parseInput(botRenewRequestSchema, request.body), request.ip);
    },
  );
}
