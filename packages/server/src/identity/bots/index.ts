import type { FastifyInstance } from 'fastify';
import { LocksService } from '../../access-control/locks/locks.service.js';
import { LocksStore } from '../../access-control/locks/locks.store.js';
import type { Platform } from '../../platform.js';
import type { IdentityBasics } from '../build-identity.js';
import type { CliLoginServices } from '../cli-login/index.js';
import { BotIdentityService } from './bot-identity.service.js';
import { botsAdminRoutes } from './bots-admin.routes.js';
import { BotsAdminService } from './bots-admin.service.js';
import { botsRoutes } from './bots.routes.js';
import { BotsService } from './bots.service.js';
import { BotsStore } from './bots.store.js';
import { CiIdTokens } from './ci-id-token.js';

export { BotsService, botUserName } from './bots.service.js';
export { BotsStore } from './bots.store.js';

/**
 * Machine identities (docs/bots.md): what a running bot calls, and Manage Bots for admins (the
 * console; `postern bots` on the host builds the same BotsService).
 */
export function buildBots(
  platform: Platform,
  identity: IdentityBasics,
  cliLogin: Pick<CliLoginServices, 'issuer'>,
) {
  const { backend, audit, now } = platform;
  const store = new BotsStore(backend);
  const botIdentity = new BotIdentityService({
    store,
    idTokens: new CiIdTokens(now),
    users: identity.usersStore,
    issuer: cliLogin.issuer,
    // A copied identity locks its bot: the lock is written as any other, and enforced by the watch.
    locks: new LocksService(new LocksStore(backend), audit, now),
    audit,
    now,
  });
  const botsAdmin = new BotsAdminService(
    new BotsService({ users: identity.users, store, audit, now }),
  );
  return { botIdentity, botsAdmin };
}

export type BotServices = ReturnType<typeof buildBots>;

export async function registerBotsRoutes(
  server: FastifyInstance,
  services: BotServices & Pick<CliLoginServices, 'certAuth'>,
  options: { loginRateLimit: { max: number; timeWindow: number }; clusterName: string },
) {
  await server.register(botsRoutes, { ...services, loginRateLimit: options.loginRateLimit });
  await server.register(botsAdminRoutes, { ...services, clusterName: options.clusterName });
}
