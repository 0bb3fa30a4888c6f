import type { FastifyInstance } from 'fastify';
import { LocksService } from '../../access-control/locks/locks.service.js';
import { LocksStore } from '../../access-control/locks/locks.store.js';
import type { Platform } from '../../platform.js';
import type { IdentityBasics } from '../build-identity.js';
import type { CliLoginServices } from '../cli-login/index.js';
import { BotIdentityService } from './bot-identity.service.js';
import { botsRoutes } from './bots.routes.js';
import { BotsStore } from './bots.store.js';
import { CiIdTokens } from './ci-id-token.js';

export { BotsService, botUserName } from './bots.service.js';
export { BotsStore } from './bots.store.js';

/** Machine identities: what a running bot calls (docs/bots.md). Admins manage bots from the CLI. */
export function buildBots(
  platform: Platform,
  identity: IdentityBasics,
  cliLogin: Pick<CliLoginServices, 'issuer'>,
) {
  const { backend, audit, now } = platform;
  const botIdentity = new BotIdentityService({
    store: new BotsStore(backend),
    idTokens: new CiIdTokens(now),
    users: identity.usersStore,
    issuer: cliLogin.issuer,
    // A copied identity locks its bot: the lock is written as any other, and enforced by the watch.
    locks: new LocksService(new LocksStore(backend), audit, now),
    audit,
    now,
  });
  return { botIdentity };
}

export type BotServices = ReturnType<typeof buildBots>;

export async function registerBotsRoutes(
  server: FastifyInstance,
  services: BotServices & Pick<CliLoginServices, 'certAuth'>,
  loginRateLimit: { max: number; timeWindow: number },
) {
  await server.register(botsRoutes, { ...services, loginRateLimit });
}
