import type { KubeExecRequest } from '@postern/contracts';
import type { AccessResolver } from '../../../access-control/access/access-resolver.js';
import { lockMessage, type LockWatcher } from '../../../access-control/locks/lock-watcher.js';
import { webSessionMarks, type Identity } from '../../../http/request-identity.js';
import { authorizeKubeCall } from '../access/kube-authorizer.js';
import type { KubeClusterRecord } from '../kube-kind.js';
import type { KubeRequestAudit } from '../kube-request-audit.js';
import type { KubeEndpoint } from '../upstream/kube-endpoint.js';
import type { ExecOwner, ExecTarget } from './kube-exec-sessions.js';

export interface ExecAccessDeps {
  clusters: { get(name: string): KubeClusterRecord | undefined };
  endpointFor(cluster: KubeClusterRecord): KubeEndpoint;
  access: Pick<AccessResolver, 'resolve'>;
  locks: Pick<LockWatcher, 'lockFor'>;
  audit: KubeRequestAudit;
}

/**
 * Whether a console user may exec in a pod, judged as kubectl's exec is (the roles' labels,
 * users and groups, `kubernetes_resources` with the `exec` verb) and audited as the same request;
 * and the re-check that ends the session when a lock or a role change takes that away.
 */
export class ExecAccess {
  constructor(private readonly deps: ExecAccessDeps) {}

  open(
    identity: Identity,
    clusterName: string,
    params: KubeExecRequest,
    remoteAddr: string,
  ): { owner: ExecOwner; target: ExecTarget } | { refused: string; code: 403 | 404 } {
    const cluster = this.deps.clusters.get(clusterName);
    if (
      !cluster ||
      !identity.roleSet.canAccess('kube', {
        labels: cluster.metadata.labels,
        name: cluster.metadata.name,
      })
    ) {
      return { refused: `no Kubernetes cluster named ${clusterName}`, code: 404 };
    }
    const path = execPath(params);
    const judged = this.judge(identity, cluster, path);
    if ('refused' in judged) {
      this.deps.audit.record({
        user: identity.user,
        cluster: clusterName,
        method: 'POST',
        path: path.split('?')[0]!,
        request: judged.request,
        status: 403,
        remoteAddr,
      });
      return { refused: judged.refused, code: 403 };
    }
    this.deps.audit.record({
      user: identity.user,
      cluster: clusterName,
      method: 'POST',
      path: path.split('?')[0]!,
      request: judged.request,
      impersonation: judged.impersonation,
      status: 101,
      remoteAddr,
    });
    return {
      owner: {
        user: identity.user,
        roles: identity.roles,
        roleSet: identity.roleSet,
        recheck: () => {
          const again = this.judge(identity, cluster, path);
          return 'refused' in again ? again.refused : undefined;
        },
      },
      target: {
        cluster,
        endpoint: this.deps.endpointFor(cluster),
        namespace: params.namespace,
        pod: params.pod,
        subresource: 'exec',
        impersonation: judged.impersonation,
        remoteAddr,
      },
    };
  }

  private judge(identity: Identity, cluster: KubeClusterRecord, path: string) {
    const { user, session } = identity;
    const resolved = this.deps.access.resolve(user, session.roles, session.accessRequests ?? []);
    const lock = this.deps.locks.lockFor({
      user,
      roles: resolved.roles,
      ...webSessionMarks(identity),
    });
    if (lock) return { refused: `locked: ${lockMessage(lock)}`, request: undefined };
    const authorized = authorizeKubeCall(
      { user, roleSet: resolved.roleSet },
      cluster,
      'POST',
      path,
    );
    if (!authorized.ok) return { refused: authorized.message, request: authorized.request };
    return authorized;
  }
}

function execPath(params: KubeExecRequest): string {
  const ns = encodeURIComponent(params.namespace);
  const pod = encodeURIComponent(params.pod);
  return `/api/v1/namespaces/${ns}/pods/${pod}/exec`;
}
