import type {
  TrustedClusterValidateRequest,
  TrustedClusterValidateResponse,
} from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { ApiError, badParameter } from '../../errors.js';
import { ED25519, formatPublicKey, parsePublicKey } from '../../ssh/keys.js';
import type { AuditStore } from '../audit/index.js';
import { emitAudit, remoteAddr } from '../audit/emit.js';
import type { JoinTokensService } from '../join-tokens/join-tokens.service.js';
import { leafTunnelId } from '../tunnel/tunnel-protocol.js';
import type { ClusterKey } from './cluster-keys.js';
import type { RemoteClustersStore } from './remote-clusters.store.js';

/** A leaf's tunnel certificate lasts 30 days and is renewed over its tunnel, like an agent's. */
export const leafCertificateTtlMs = 30 * 24 * 3600_000;

export interface RootTrustDeps {
  tokens: Pick<JoinTokensService, 'validate'>;
  remoteClusters: RemoteClustersStore;
  /** Signs the leaf's tunnel certificate (the cluster host CA). */
  issueHostCertificate(options: {
    publicKey: string;
    principals: string[];
    ttlMs: number;
    hostId: string;
  }): string;
  identityKey: () => Promise<ClusterKey>;
  audit: AuditStore;
  clusterName: string;
  now: Clock;
}

export interface RootTrustAnswer extends TrustedClusterValidateResponse {
  /** A host certificate for the leaf's tunnel key, naming `trusted_cluster/<leaf>`. */
  host_certificate: string;
}

/**
 * The root's side of a trusted cluster: a leaf that brings a live `Trusted_cluster` join token
 * is recorded as a remote cluster with the key it will open its tunnel with, and gets back the
 * root's name, the key the root signs forwarded identities with, and a certificate for its tunnel.
 * A name already taken by another key is refused: a leaf cannot take over another's place.
 */
export class RootTrustService {
  constructor(private readonly deps: RootTrustDeps) {}

  async validate(
    request: TrustedClusterValidateRequest,
    remote?: string,
  ): Promise<RootTrustAnswer> {
    const { tokens, remoteClusters, audit, clusterName } = this.deps;
    const about = {
      hostname: request.leaf_name,
      role: 'Trusted_cluster',
      method: 'token',
      ...remoteAddr(remote),
    };
    const refuse = async (reason: string, error: Error) => {
      await emitAudit(audit, 'TJ002E', { ...about, success: false, reason });
      return error;
    };
    try {
      await tokens.validate(request.token, 'Trusted_cluster');
    } catch (error) {
      throw await refuse('invalid join token', error as Error);
    }
    if (request.root_name !== clusterName) {
      const why = `this cluster is named ${clusterName}, not ${request.root_name}: a trusted cluster takes its root's name`;
      throw await refuse(why, badParameter(why));
    }
    if (request.leaf_name === clusterName) {
      const why = `the leaf is named ${clusterName}, as this cluster is: a cluster cannot trust itself or its namesake`;
      throw await refuse(why, badParameter(why));
    }
    let publicKey: string;
    try {
      const parsed = parsePublicKey(request.leaf_public_key);
      if (parsed.type !== ED25519) throw new Error('the leaf key must be ssh-ed25519');
      publicKey = formatPublicKey(parsed.type, parsed.blob);
    } catch (error) {
      throw await refuse((error as Error).message, badParameter((error as Error).message));
    }
    const existing = await remoteClusters.get(request.leaf_name);
    if (existing && existing.publicKey !== publicKey) {
      const why = `a cluster named ${request.leaf_name} is already trusted with another key: remove it on this cluster first (postern rm remote_cluster/${request.leaf_name})`;
      throw await refuse(why, new ApiError('already_exists', why));
    }
    await remoteClusters.put({
      name: request.leaf_name,
      publicKey,
      created: existing?.created ?? new Date(this.deps.now()).toISOString(),
      ...(existing?.lastHeartbeat ? { lastHeartbeat: existing.lastHeartbeat } : {}),
    });
    const id = leafTunnelId(request.leaf_name);
    const hostCertificate = this.deps.issueHostCertificate({
      publicKey,
      principals: [id],
      ttlMs: leafCertificateTtlMs,
      hostId: id,
    });
    await emitAudit(audit, 'TJ002I', { ...about, success: true, host_id: id });
    return {
      cluster_name: clusterName,
      identity_key: (await this.deps.identityKey()).spkiPem,
      host_certificate: hostCertificate,
    };
  }
}
