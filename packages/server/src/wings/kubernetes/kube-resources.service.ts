import type { KubeResourceItem } from '@postern/contracts';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { ApiError, accessDenied, badParameter } from '../../errors.js';
import { authorizeKubeCall } from './access/kube-authorizer.js';
import type { KubeItem } from './access/kube-verdict.js';
import { impersonated } from './kube-api-proxy.js';
import type { KubeClusterRecord } from './kube-kind.js';
import type { KubeEndpoint } from './upstream/kube-endpoint.js';

interface Metadata {
  name?: string;
  namespace?: string;
}
interface ObjectList {
  items?: {
    metadata?: Metadata;
    spec?: { containers?: { name?: string }[] };
    status?: { phase?: string };
  }[];
}

/** A picker's answer never waits longer than this for the cluster. */
const timeoutMs = 10_000;
/** A namespace with more pods than this shows the first ones: the picker is not a listing. */
const maxItems = 500;

/**
 * Namespaces, or the pods of one, for Exec in browser's picker: read from the cluster as the user
 * (impersonated like kubectl's requests, under the same `kubernetes_resources`), so the picker
 * offers only what an exec could open.
 */
export class KubeResourcesReader {
  constructor(private readonly endpointFor: (cluster: KubeClusterRecord) => KubeEndpoint) {}

  async list(
    who: { user: string; roleSet: RoleSet },
    cluster: KubeClusterRecord,
    kind: 'namespace' | 'pod',
    namespace: string | undefined,
  ): Promise<KubeResourceItem[]> {
    if (kind === 'pod' && !namespace) throw badParameter('kubeNamespace: name the namespace');
    const path =
      kind === 'namespace'
        ? `/api/v1/namespaces?limit=${maxItems}`
        : `/api/v1/namespaces/${encodeURIComponent(namespace!)}/pods?limit=${maxItems}`;
    let authorized = authorizeKubeCall(who, cluster, 'GET', path);
    let keep = authorized.ok ? (authorized.filter ?? (() => true)) : () => true;
    if (!authorized.ok && kind === 'namespace' && authorized.request) {
      // Roles that name pods, not namespaces, may not list namespaces; the picker then offers
      // those whose pods they may list, read with the same impersonation.
      authorized = {
        ...authorizeKubeCall(who, cluster, 'GET', '/version'),
        request: authorized.request,
      };
      keep = (item: KubeItem) => podsListable(who, cluster, item.name);
    }
    if (!authorized.ok) throw accessDenied(authorized.message);
    const list = await this.getJson(cluster, path, impersonated(authorized.impersonation));
    return (list.items ?? [])
      .map((item) => ({
        name: item.metadata?.name ?? '',
        namespace: item.metadata?.namespace ?? '',
        containers: (item.spec?.containers ?? []).map((c) => c.name ?? '').filter(Boolean),
        status: item.status?.phase ?? '',
      }))
      .filter((item) => item.name && keep(item));
  }

  private getJson(
    cluster: KubeClusterRecord,
    path: string,
    headers: OutgoingHttpHeaders,
  ): Promise<ObjectList> {
    return new Promise((resolve, reject) => {
      const request = this.endpointFor(cluster).request('GET', path, {
        ...headers,
        accept: 'application/json',
      });
      request.setTimeout(timeoutMs, () => request.destroy(new Error('the cluster did not answer')));
      request.on('response', (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          if (answer.statusCode !== 200) {
            const message =
              (body as { message?: string } | undefined)?.message ?? text.slice(0, 200);
            return reject(
              answer.statusCode === 403
                ? accessDenied(`the cluster refused: ${message}`)
                : new ApiError(
                    'connection_problem',
                    `the cluster answered ${answer.statusCode}: ${message}`,
                  ),
            );
          }
          resolve((body ?? {}) as ObjectList);
        });
        answer.on('error', reject);
      });
      request.on('error', (error) =>
        reject(
          new ApiError('connection_problem', `the cluster could not be reached: ${error.message}`),
        ),
      );
      request.end();
    });
  }
}

/** Whether the roles let the user list pods in `namespace` (some of them, at least). */
function podsListable(
  who: { user: string; roleSet: RoleSet },
  cluster: KubeClusterRecord,
  namespace: string,
): boolean {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
  return authorizeKubeCall(who, cluster, 'GET', path).ok;
}
