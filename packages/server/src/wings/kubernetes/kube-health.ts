import type { KubeClusterRecord } from './kube-kind.js';
import type { KubeClustersService } from './kube-clusters.service.js';
import type { KubeEndpoint } from './upstream/kube-endpoint.js';

/** How long one check waits for the API server's answer. */
const answerTimeoutMs = 5_000;

/**
 * The status of the clusters this proxy reaches itself (the config file's and `postern
 * create`'s): every interval it asks each API server for `/version` with the cluster's own
 * credential, and marks those that answer 200 online for three intervals. Agents report their own
 * clusters with their heartbeats.
 */
export function checkKubeHealth(
  clusters: KubeClustersService,
  endpointFor: (cluster: KubeClusterRecord) => KubeEndpoint,
  intervalMs: number,
): () => void {
  let running = false;
  const round = async () => {
    if (running) return;
    running = true;
    try {
      const direct = clusters.rows().filter((row) => row.resource.source !== 'agent');
      await Promise.all(
        direct.map(async ({ resource }) => {
          if (await answers(resource, endpointFor)) {
            await clusters.inventory.markOnline(resource.metadata.name, intervalMs * 3);
          }
        }),
      );
    } catch {
      // A storage hiccup: the next round tries again.
    } finally {
      running = false;
    }
  };
  void round();
  const timer = setInterval(() => void round(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

function answers(
  cluster: KubeClusterRecord,
  endpointFor: (cluster: KubeClusterRecord) => KubeEndpoint,
): Promise<boolean> {
  return new Promise((resolve) => {
    let endpoint: KubeEndpoint;
    try {
      endpoint = endpointFor(cluster);
    } catch {
      return resolve(false);
    }
    const request = endpoint.request('GET', '/version', { accept: 'application/json' });
    request.setTimeout(answerTimeoutMs, () => request.destroy());
    request.on('response', (answer) => {
      answer.resume();
      resolve(answer.statusCode === 200);
    });
    request.on('error', () => resolve(false));
    request.end();
  });
}
