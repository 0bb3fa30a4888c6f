import { AuditBatcher } from '../../modules/audit/audit-batcher.js';
import { remoteAddr } from '../../modules/audit/emit.js';
import type { AuditStore } from '../../modules/audit/index.js';
import type { KubeRequest } from './access/kube-request.js';
import type { Impersonation } from './access/impersonation.js';

export interface KubeRequestRecord {
  user: string;
  cluster: string;
  method: string;
  /** The API path, without the query. */
  path: string;
  request: KubeRequest | undefined;
  impersonation?: Impersonation;
  status: number;
  remoteAddr?: string;
}

/**
 * One `kube.request` event per API request, allowed or refused (the status says which), written
 * in batches: kubectl and controllers send many, and the request path never waits for the log.
 */
export class KubeRequestAudit {
  readonly #events: AuditBatcher;

  constructor(audit: AuditStore) {
    this.#events = new AuditBatcher(audit);
  }

  record(entry: KubeRequestRecord): void {
    const resource = entry.request?.resource ? entry.request : undefined;
    this.#events.add('T3009I', {
      user: entry.user,
      kubernetes_cluster: entry.cluster,
      verb: entry.method,
      request_path: entry.path,
      response_code: entry.status,
      ...(resource
        ? {
            resource_api_group: resource.apiGroup,
            resource_kind: resource.subresource
              ? `${resource.plural}/${resource.subresource}`
              : resource.plural,
            resource_namespace: resource.namespace,
            resource_name: resource.name,
          }
        : {}),
      ...(entry.impersonation
        ? {
            kubernetes_users: [entry.impersonation.user],
            kubernetes_groups: entry.impersonation.groups,
          }
        : {}),
      ...remoteAddr(entry.remoteAddr),
    });
  }

  flush(): Promise<void> {
    return this.#events.flush();
  }
}
