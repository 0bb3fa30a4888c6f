import type { FastifyInstance } from 'fastify';
import type { Backend } from './backend/index.js';
import type { Clock } from './clock.js';
import type { Config } from './config/config.js';
import { publicBaseUrl, sshProxyPublicAddr } from './config/public-url.js';
import type { IdentityServices } from './identity.js';
import type { AccessResolver } from './modules/access/access-resolver.js';
import type { AuditStore } from './modules/audit/index.js';
import { headlessRoutes } from './modules/headless/headless.routes.js';
import { HeadlessService } from './modules/headless/headless.service.js';
import { HeadlessStore } from './modules/headless/headless.store.js';
import type { LockView } from './modules/locks/lock-watcher.js';
import type { InventoryService } from './modules/nodes/inventory.service.js';
import { CertIssuer } from './modules/ssh-login/cert-issuer.js';
import { CertRequestAuth } from './modules/ssh-login/cert-request-auth.js';
import { sshLoginRoutes } from './modules/ssh-login/ssh-login.routes.js';
import { SshCertsService } from './modules/ssh-login/ssh-certs.service.js';
import type { ClusterCa } from './ssh/ca.service.js';

export interface SshLoginDeps {
  config: Config;
  backend: Backend;
  audit: AuditStore;
  now: Clock;
  identity: IdentityServices;
  access: AccessResolver;
  locks: LockView;
  ca: ClusterCa;
  inventory: InventoryService;
  /** Shared with the CLI's SSO sign-in (sso.ts): one way certificates are made. */
  issuer: CertIssuer;
}

/** The user certificates `postern login` gets, whichever way the user proved who they are. */
export function buildCertIssuer(
  deps: Pick<SshLoginDeps, 'config' | 'audit' | 'now' | 'access' | 'locks' | 'ca'>,
): CertIssuer {
  return new CertIssuer({
    ca: deps.ca,
    access: deps.access,
    locks: deps.locks,
    audit: deps.audit,
    sshProxyAddr: () => sshProxyPublicAddr(deps.config),
    now: deps.now,
  });
}

/** After expiry, a headless request stays readable this long ("expired", a late collect). */
const headlessKeepMs = 5 * 60_000;

/**
 * Command-line sign-in: user certificates for `postern login`, by password or by a
 * browser's headless approval, and the certificate-signed calls the CLI makes afterwards.
 */
export async function registerSshLoginRoutes(
  server: FastifyInstance,
  deps: SshLoginDeps,
  loginRateLimit: { max: number; timeWindow: number },
) {
  const { config, identity, audit, now, issuer } = deps;
  const certs = new SshCertsService({
    login: identity.login,
    secondFactor: identity.secondFactor,
    issuer,
    settings: config.auth,
  });
  const certAuth = new CertRequestAuth({
    userCaPublicKeys: () => [deps.ca.userCaPublicKey],
    access: deps.access,
    locks: deps.locks,
    now,
  });
  const headless = new HeadlessService({
    store: new HeadlessStore(deps.backend, headlessKeepMs),
    users: identity.usersStore,
    secondFactor: identity.secondFactor,
    lockout: identity.lockout,
    issuer,
    audit,
    publicUrl: publicBaseUrl(config),
    now,
  });
  const clusterName = config.clusterName;
  await server.register(sshLoginRoutes, {
    certs,
    certAuth,
    inventory: deps.inventory,
    clusterName,
    loginRateLimit,
  });
  await server.register(headlessRoutes, { headless, loginRateLimit });
}
