import { agentPaths, errorCatalogue } from '@postern/contracts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import { lockMessage, type LockView } from '../../access-control/locks/lock-watcher.js';
import { ApiError } from '../../errors.js';
import type { TunnelCallers } from '../../identity/cli-login/tunnel-caller.js';
import type { KubeApiProxy, KubeCaller } from './kube-api-proxy.js';
import { kubePathPrefix } from './kube-path.js';
import { rawResponse } from './upstream/forward.js';
import { kubeStatus, writeStatus, type KubeStatus } from './upstream/kube-status.js';

/**
 * kubectl to a trusted leaf's Kubernetes cluster through the root, the leaf's half
 * (docs/trusted-clusters.md, "kubectl to a leaf's clusters"): the leaf session the root sends is
 * the caller, so the leaf's role map, roles, locks, exec recording and audit decide, as for its
 * own users. The root's half is leaf-kube-relay.ts.
 */

/** The check a kubectl request of `cluster` on a leaf stands for (per-session MFA). */
export const kubeCheck = (cluster: string) => `kube:${cluster}`;

export interface LeafKubeLeafDeps {
  proxy: Pick<KubeApiProxy, 'serve' | 'serveUpgrade'>;
  /** This (leaf) cluster's name, for what a refusal tells the user to run on the root. */
  clusterName: string;
  /** The leaf session the root sends, as tunnels take it (its cookie, bearer and MFA word). */
  callers: Pick<TunnelCallers, 'bySession'>;
  access: Pick<AccessResolver, 'resolve'>;
  locks: LockView;
}

/**
 * The leaf's half (ClusterKube's leaf side): a root's user's kubectl request, brought by the
 * root's tunnel to `<leafKube>/<cluster>/<API path>`, served by the API proxy as a request of
 * the user the leaf session names.
 */
export function leafKubeServer(deps: LeafKubeLeafDeps) {
  const callerOf = async (req: IncomingMessage): Promise<KubeCaller | KubeStatus> => {
    const named = asKubeUrl(req.url ?? '');
    if (!named) return kubeStatus(404, 'name a cluster');
    const { cluster } = named;
    // Served (and refused) as the API proxy serves any request: `/kube/<cluster>/…`, so that a
    // refused discovery is answered in the text kubectl prints.
    req.url = named.url;
    try {
      const caller = await deps.callers.bySession(req);
      // A root's user has no device here: the root runs the check and sends its signed word.
      const fix = `run postern kube login ${cluster} --cluster ${deps.clusterName} again on the root, and kubectl asks for your code`;
      const unchecked = await caller.mfaRefusal(kubeCheck(cluster), 'this kubectl context', fix);
      if (unchecked) return kubeStatus(403, unchecked);
      const { user, sessionRoles, accessRequests } = caller;
      return {
        user,
        cluster,
        identify: () => {
          const resolved = deps.access.resolve(user, sessionRoles, accessRequests);
          const lock = deps.locks.lockFor({ user, roles: resolved.roles, accessRequests });
          if (lock) return { refused: `locked: ${lockMessage(lock)}`, code: 403 };
          return { user, roleSet: resolved.roleSet, roles: resolved.roles };
        },
      };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return kubeStatus(errorCatalogue[error.code], error.message);
    }
  };
  return {
    request(req: IncomingMessage, res: ServerResponse): void {
      void callerOf(req).then((caller) => {
        if ('kind' in caller) return writeStatus(res, caller);
        deps.proxy.serve(req, res, caller);
      });
    },
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      socket.on('error', () => undefined);
      void callerOf(req).then((caller) => {
        if ('kind' in caller) return void socket.end(rawResponse(caller.code, caller));
        deps.proxy.serveUpgrade(req, socket, head, caller);
      });
    },
  };
}

/**
 * A `<leafKube>/<cluster>/<API path>` URL as the API proxy reads one (`/kube/<cluster>/…`), and
 * the cluster it names; undefined when it names none.
 */
function asKubeUrl(url: string): { cluster: string; url: string } | undefined {
  const rest = url.slice(agentPaths.leafKube.length + 1);
  const at = rest.search(/[/?]/);
  const [segment, tail] = at < 0 ? [rest, ''] : [rest.slice(0, at), rest.slice(at)];
  try {
    const cluster = decodeURIComponent(segment);
    return cluster ? { cluster, url: `${kubePathPrefix}${segment}${tail}` } : undefined;
  } catch {
    return undefined;
  }
}
