import { nodeSubKinds } from '@postern/contracts';
import { z } from 'zod';
import type { AuditStore } from '../../../modules/audit/index.js';
import { emitAudit, remoteAddr } from '../../../modules/audit/emit.js';
import { normalizeHostKey, safeFingerprint } from '../nodes/host-key.js';
import type { InventoryService } from '../nodes/inventory.service.js';
import { hostnameSchema, hostOf, hostPortSchema, labelsSchema } from '../nodes/node-records.js';
import {
  nodeLabelsFrom,
  type JoinTokensService,
} from '../../../modules/join-tokens/join-tokens.service.js';

/** `POST /v1/agent/join`: what `postern agent` and the install script send. */
export const agentJoinRequestSchema = z
  .object({
    token: z.string().min(1).max(256),
    hostname: hostnameSchema,
    /** The host's Ed25519 public key, an OpenSSH line. */
    hostPublicKey: z
      .string()
      .min(1)
      .max(16 * 1024),
    /** host:port the proxy dials: required for agentless OpenSSH hosts, unused for agents. */
    addr: hostPortSchema.optional(),
    subKind: z.enum(nodeSubKinds),
    os: z.string().max(64).default(''),
    labels: labelsSchema.default({}),
  })
  .refine((body) => body.subKind !== 'openssh' || body.addr !== undefined, {
    path: ['addr'],
    message: 'an OpenSSH host needs the host:port the proxy reaches it at',
  });
export type AgentJoinRequest = z.input<typeof agentJoinRequestSchema>;

export interface AgentJoinResponse {
  nodeId: string;
  /** An OpenSSH host certificate line for `hostPublicKey`. */
  hostCertificate: string;
  /** Lines for sshd's TrustedUserCAKeys: users' certificates are signed by these. */
  userCaKeys: string[];
  /** known_hosts lines (`@cert-authority …`) for the node's own clients. */
  hostCaKeys: string[];
  clusterName: string;
}

/** The part of the cluster CA a join needs (ssh/ca.service.ts `ClusterCa` has it). */
export interface HostCertificateAuthority {
  issueHostCertificate(options: {
    publicKey: string;
    principals: string[];
    ttlMs: number;
    hostId: string;
  }): string;
  trustedUserCaKeysLine(): string;
  knownHostsLine(): string;
}

/**
 * Host certificates last 30 days: an agentless host has nothing that renews them, so running
 * the install script again (or joining again) within that time keeps it trusted.
 */
export const hostCertificateTtlMs = 30 * 24 * 3600_000;

export interface AgentJoinDeps {
  tokens: JoinTokensService;
  inventory: InventoryService;
  ca: HostCertificateAuthority;
  audit: AuditStore;
  clusterName: string;
}

/**
 * A host joins the cluster: a valid Node token and its public key buy it a node record and a host
 * certificate. Failures are audited with their reason, never with the token.
 */
export class AgentJoinService {
  constructor(private readonly deps: AgentJoinDeps) {}

  async join(
    request: z.output<typeof agentJoinRequestSchema>,
    remote?: string,
  ): Promise<AgentJoinResponse> {
    const { tokens, inventory, ca, audit, clusterName } = this.deps;
    const about = {
      hostname: request.hostname,
      role: 'Node',
      method: 'token',
      sub_kind: request.subKind,
      ...remoteAddr(remote),
    };
    const failed = async (reason: string, error: unknown) => {
      await emitAudit(audit, 'TJ002E', { ...about, success: false, reason });
      return error;
    };
    let token;
    try {
      // An agent serves apps, databases, Kubernetes clusters and desktops as well as its host:
      // an App, Db, Kube or WindowsDesktop token (install-app.sh's, install-database.sh's…) lets
      // one join. An OpenSSH host serves SSH only.
      token = await tokens.validate(
        request.token,
        request.subKind === 'openssh' ? ['Node'] : ['Node', 'App', 'Db', 'Kube', 'WindowsDesktop'],
      );
    } catch (error) {
      throw await failed('invalid join token', error);
    }
    let hostPublicKey: string;
    try {
      hostPublicKey = normalizeHostKey(request.hostPublicKey, { ed25519Only: true });
    } catch (error) {
      throw await failed((error as Error).message, error);
    }
    const joinLabels = nodeLabelsFrom(token);
    const { node } = await inventory.enroll({
      hostname: request.hostname,
      addr: request.addr ?? '',
      subKind: request.subKind,
      os: request.os,
      labels: { ...request.labels, ...joinLabels },
      joinLabels,
      hostPublicKey,
    });
    const id = node.metadata.name;
    const addrHost = request.subKind === 'openssh' && request.addr ? [hostOf(request.addr)] : [];
    const principals = [...new Set([id, request.hostname, ...addrHost])];
    const hostCertificate = ca.issueHostCertificate({
      publicKey: hostPublicKey,
      principals,
      ttlMs: hostCertificateTtlMs,
      hostId: id,
    });
    await emitAudit(audit, 'TJ002I', {
      ...about,
      success: true,
      host_id: id,
      addr: node.spec.addr,
      principals,
      fingerprint: safeFingerprint(hostPublicKey),
      internal_resource_id: token.spec.internalResourceId,
    });
    return {
      nodeId: id,
      hostCertificate,
      userCaKeys: [ca.trustedUserCaKeysLine()],
      hostCaKeys: [ca.knownHostsLine()],
      clusterName,
    };
  }
}
