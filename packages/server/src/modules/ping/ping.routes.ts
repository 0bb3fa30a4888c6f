import { apiPaths, type AuthProvider, type PingResponse } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { formatHostPort } from '../../config/address.js';
import type { Config } from '../../config/config.js';
import type { ListenAddresses } from '../../config/listen-addresses.js';
import { serverVersion } from '../../version.js';
import { authPreferences } from './auth-preferences.js';

/** `GET /v1/webapi/ping`: public, so clients learn how to sign in before they have a session. */
export async function pingRoutes(
  app: FastifyInstance,
  {
    config,
    addresses,
    providers,
  }: { config: Config; addresses: ListenAddresses; providers: () => AuthProvider[] },
) {
  app.get(apiPaths.ping, { config: { access: 'public' } }, async (): Promise<PingResponse> => {
    return {
      auth: { ...authPreferences(config, providers()), webauthn: { rp_id: config.auth.rpId } },
      proxy: {
        ssh: {
          listen_addr: formatHostPort(addresses.of('ssh') ?? config.sshAddr),
          public_addr: addresses.publicEndpoint('ssh'),
          tunnel_public_addr: formatHostPort(addresses.publicAddr()),
        },
        tls_routing_enabled: false,
      },
      server_version: serverVersion,
      min_client_version: serverVersion,
      cluster_name: config.clusterName,
    };
  });
}
