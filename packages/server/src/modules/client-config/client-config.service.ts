import type { AuthProvider, ClientConfigInput } from '@postern/contracts';
import { formatHostPort } from '../../config/address.js';
import type { Config } from '../../config/config.js';
import { authPreferences } from '../ping/auth-preferences.js';

/** The client configuration of spec §3, written into `/web/config.js`. */
export function clientConfigFor(config: Config, providers: AuthProvider[] = []): ClientConfigInput {
  return {
    proxyCluster: config.clusterName,
    // Whether the admin named a chat model; who may use it is the ACL's (`assist`).
    assistEnabled: config.assist !== undefined,
    tunnelPublicAddress: formatHostPort(config.publicAddr),
    configDir: '$HOME/.postern',
    ui: { fileTransferMaxBytes: config.fileTransfer.maxBytes },
    auth: authPreferences(config, providers),
  };
}
