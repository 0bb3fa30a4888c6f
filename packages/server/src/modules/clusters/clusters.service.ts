import type { ClusterJson } from '@postern/contracts';
import { formatHostPort } from '../../config/address.js';
import type { Config } from '../../config/config.js';
import type { ListenAddresses } from '../../config/listen-addresses.js';
import { serverVersion } from '../../version.js';

/** The clusters a user can reach: this one first, then the leaf clusters that trust it. */
export class ClustersService {
  constructor(
    private readonly config: Pick<Config, 'clusterName'>,
    private readonly addresses: Pick<ListenAddresses, 'publicAddr'>,
    /** From the inventory: it keeps its count current from its watch, so no call reads storage. */
    private readonly nodes: { nodeCount(): number; leaves(): ClusterJson[] },
  ) {}

  list(): ClusterJson[] {
    return [
      {
        name: this.config.clusterName,
        lastConnected: new Date().toISOString(),
        status: 'online',
        nodeCount: this.nodes.nodeCount(),
        publicURL: formatHostPort(this.addresses.publicAddr()),
        authVersion: serverVersion,
        proxyVersion: serverVersion,
      },
      ...this.nodes.leaves(),
    ];
  }
}
