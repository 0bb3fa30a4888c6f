import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform.js';
import type { IdentityBasics } from '../build-identity.js';
import { headlessRoutes } from '../headless/headless.routes.js';
import { HeadlessService } from '../headless/headless.service.js';
import { HeadlessStore } from '../headless/headless.store.js';
import { CertIssuer } from './cert-issuer.js';
import { CertRequestAuth } from './cert-request-auth.js';
import { SignatureUses } from './signature-uses.js';
import { TunnelCallers } from './tunnel-caller.js';
import { sshLoginRoutes } from './ssh-login.routes.js';
import { SshCertsService } from './ssh-certs.service.js';

/** After expiry, a headless request stays readable this long ("expired", a late collect). */
const headlessKeepMs = 5 * 60_000;

/**
 * Command-line sign-in: the user certificates `postern login` gets, by password or by a
 * browser's headless approval (SSO's console login uses the same issuer), and the check of the
 * certificate-signed calls the CLI makes afterwards.
 */
export function buildCliLogin(platform: Platform, identity: IdentityBasics) {
  const { config, audit, now, access, locks, ca, addresses } = platform;
  const issuer = new CertIssuer({
    ca,
    access,
    locks,
    audit,
    sshProxyAddr: () => addresses.publicEndpoint('ssh'),
    leafHostSigners: () => platform.clusterSsh.hostSigners(),
    now,
  });
  const certs = new SshCertsService({
    login: identity.login,
    secondFactor: identity.secondFactor,
    issuer,
    settings: config.auth,
  });
  const certAuth = new CertRequestAuth({
    userCaPublicKeys: () => [ca.userCaPublicKey],
    access,
    locks,
    now,
    uses: new SignatureUses(platform.backend),
  });
  const headless = new HeadlessService({
    store: new HeadlessStore(platform.backend, headlessKeepMs),
    users: identity.usersStore,
    secondFactor: identity.secondFactor,
    lockout: identity.lockout,
    issuer,
    audit,
    publicUrl: () => addresses.publicBaseUrl(),
    now,
  });
  const tunnelCallers = new TunnelCallers({
    certAuth,
    guard: { sessions: identity.sessions, access, locks },
    sessionMfa: identity.sessionMfa,
  });
  return { issuer, certs, certAuth, tunnelCallers, headless };
}

export type CliLoginServices = ReturnType<typeof buildCliLogin>;

export async function cliLoginRoutes(
  server: FastifyInstance,
  { certs, headless }: CliLoginServices,
  loginRateLimit: { max: number; timeWindow: number },
) {
  await server.register(sshLoginRoutes, { certs, loginRateLimit });
  await server.register(headlessRoutes, { headless, loginRateLimit });
}
