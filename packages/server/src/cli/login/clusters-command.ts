import { apiPaths, clusterListSchema } from '@postern/contracts';
import { printTable, type Print } from '../table.js';
import { signedClient } from './signed-client.js';

/**
 * `postern clusters`: the cluster signed in to and the trusted leaves it reaches, with their
 * state, so their names are at hand for `--cluster` (ls, ssh, sessions ls, join).
 */
export async function clusters(env: NodeJS.ProcessEnv, print: Print) {
  const { get, profile } = await signedClient(env);
  // This cluster first, then its leaves (as the console's `sites`).
  const listed = await get(apiPaths.cliClusters, clusterListSchema);
  const rows = listed.map((cluster, at) => [
    cluster.name,
    at === 0 ? 'root' : 'leaf',
    cluster.status,
    String(cluster.nodeCount),
    cluster.name === profile.cluster ? '*' : '',
  ]);
  printTable(['Cluster', 'Type', 'Status', 'Servers', 'Selected'], rows, print);
  if (listed.length > 1) {
    print('');
    print("A leaf's servers: postern ls --cluster NAME, then ssh <login>@<server>.NAME");
  }
}
