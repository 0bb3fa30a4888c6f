import { ConfigError } from '../config/config.js';
import { ClusterCa } from '../ssh/ca.service.js';
import type { AdminContext } from './admin-context.js';
import type { Print } from './table.js';

export const caTypes = ['user', 'host'] as const;
export type CaType = (typeof caTypes)[number];

/**
 * `postern ca export --type user|host`: the line that makes OpenSSH trust the cluster. The user
 * CA line goes in the file sshd's `TrustedUserCAKeys` names (nodes then accept Postern's
 * certificates); the host line goes in a client's known_hosts (it then trusts every node whose
 * host key the cluster signed). Creates the CAs first if the cluster has none yet.
 */
export async function caExport(
  ctx: AdminContext,
  options: { type?: string },
  print: Print,
): Promise<void> {
  const type = options.type;
  if (!caTypes.includes(type as CaType)) {
    throw new ConfigError(`--type must be user or host, not ${JSON.stringify(type ?? '')}`);
  }
  const ca = await ClusterCa.loadOrCreate(ctx.backend, ctx.config.clusterName);
  print(type === 'user' ? ca.trustedUserCaKeysLine() : ca.knownHostsLine());
}
