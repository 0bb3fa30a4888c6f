import type { ClusterJson } from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import { formatHostPort } from '../../config/address.js';
import type { Config } from '../../config/config.js';
import { serverVersion } from '../../version.js';

/** The clusters a user can reach: the local one now; trusted (leaf) clusters join it later. */
export class ClustersService {
  constructor(
    private readonly config: Config,
    private readonly backend: Backend,
  ) {}

  async list(): Promise<ClusterJson[]> {
    return [
      {
        name: this.config.clusterName,
        lastConnected: new Date().toISOString(),
        status: 'online',
        nodeCount: await this.countNodes(),
        publicURL: formatHostPort(this.config.publicAddr),
        authVersion: serverVersion,
        proxyVersion: serverVersion,
      },
    ];
  }

  private async countNodes(): Promise<number> {
    let count = 0;
    let startKey: string | undefined;
    do {
      const page = await this.backend.list({ prefix: '/nodes/', startKey, limit: 1000 });
      count += page.items.length;
      startKey = page.nextKey;
    } while (startKey);
    return count;
  }
}
