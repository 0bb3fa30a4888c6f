import type { FastifyInstance } from 'fastify';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/config.js';
import { publicBaseUrl, sshProxyPublicAddr } from '../../config/public-url.js';
import type { IdentityServices } from '../index.js';
import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { headlessRoutes } from '../headless/headless.routes.js';
import { HeadlessService } from '../headless/headless.service.js';
import { HeadlessStore } from '../headless/headless.store.js';
import type { LockView } from '../../access-control/locks/lock-watcher.js';
import type { InventoryService } from '../../wings/servers/nodes/inventory.service.js';
import { CertIssuer } from './cert-issuer.js';
import { CertRequestAuth } from './cert-request-auth.js';
import { sshLoginRoutes } from './ssh-login.routes.js';
import { SshCertsService } from './ssh-certs.service.js';
import type { ClusterCa } from '../../ssh/ca.service.js';

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
