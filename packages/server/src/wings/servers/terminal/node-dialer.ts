import type { TunnelDialer } from '../../../modules/tunnel/index.js';
import type { Client } from 'ssh2';
import type { ClusterCa } from '../../../ssh/ca.service.js';
import type { HostUserGrant } from '../../../ssh/host-user-extension.js';
import { connectToNode, type ConnectToNodeOptions } from '../../../ssh/client.js';
import { fingerprint, generateEd25519Key, parsePublicKey } from '../../../ssh/keys.js';

/** What the proxy needs to know to reach a server. */
export interface DialableNode {
  id: string;
  hostname: string;
  /** host:port; '' for tunnel nodes. */
  addr: string;
  subKind: 'postern' | 'openssh';
  tunnel: boolean;
  labels: Record<string, string>;
  /** OpenSSH line of the host key we trust for it; '' when none is known yet. */
  hostPublicKey: string;
  online: boolean;
}

/** Where trusted host keys are recorded (the inventory). */
export interface HostKeyBook {
  pinHostKey(id: string, publicKeyLine: string): Promise<unknown>;
  reportHostKeyMismatch(id: string, presentedKeyLine: string): Promise<unknown>;
}

export interface DialIdentity {
  user: string;
  roles: string[];
  ttlMs: number;
  permitPortForwarding: boolean;
  permitAgentForwarding: boolean;
  /** The roles' cert_extensions. */
  extensions?: Record<string, string>;
  /** ssh_file_copy: false (the node service refuses sftp and scp). */
  denyFileCopy?: boolean;
  /** create_host_user_mode and its lists, for this node and login (rbac/host-users.ts). */
  hostUser?: HostUserGrant | undefined;
}

export class HostKeyMismatchError extends Error {}

/**
 * Connects to a node as a login with a fresh key and a short-lived certificate from the user CA
 * (one per session, so nothing reusable is left behind), over TCP or an agent's tunnel, and
 * checks the host key the node presents against the one on record.
 */
export class NodeDialer {
  constructor(
    private readonly deps: {
      ca: ClusterCa;
      hostKeys: HostKeyBook;
      tunnels?: TunnelDialer;
      connectTimeoutMs?: number;
      /** ssh.keepalive_interval: a node that misses three in a row is given up on. */
      keepaliveIntervalMs?: number;
    },
  ) {}

  async connect(
    node: DialableNode,
    login: string,
    who: DialIdentity,
    agent?: ConnectToNodeOptions['agent'],
  ): Promise<Client> {
    const key = generateEd25519Key();
    const certificate = this.deps.ca.issueUserCertificate({
      user: who.user,
      roles: who.roles,
      logins: [login],
      publicKey: key.publicKey,
      ttlMs: who.ttlMs,
      permitPortForwarding: who.permitPortForwarding,
      permitAgentForwarding: who.permitAgentForwarding,
      extraExtensions: who.extensions,
      denyFileCopy: who.denyFileCopy,
      ...(who.hostUser ? { hostUser: who.hostUser } : {}),
    });
    let presented = '';
    const verifyHostKey = async (blob: Buffer) => {
      presented = keyLineFromBlob(blob);
      return this.hostKeyTrusted(node, presented);
    };
    const common = {
      login,
      key: { privateKeyPem: key.privateKeyPem, certificate },
      verifyHostKey,
      readyTimeoutMs: this.deps.connectTimeoutMs ?? 15_000,
      ...(this.deps.keepaliveIntervalMs
        ? { keepaliveIntervalMs: this.deps.keepaliveIntervalMs }
        : {}),
      ...(agent ? { agent } : {}),
    };
    try {
      if (node.tunnel) {
        if (!this.deps.tunnels) throw new Error('agent tunnels are not available on this proxy');
        return await connectToNode({
          ...common,
          sock: await this.deps.tunnels.dial({ kind: 'node', name: node.id }),
        });
      }
      const { host, port } = splitHostPort(node.addr);
      return await connectToNode({ ...common, host, port });
    } catch (error) {
      if (presented && node.hostPublicKey && !sameKey(presented, node.hostPublicKey)) {
        throw new HostKeyMismatchError(
          `the host key of ${node.hostname} has changed: it presented ${fingerprint(presented)}, ` +
            `but ${fingerprint(node.hostPublicKey)} is on record; refusing to connect. If the ` +
            `host was reinstalled, remove it and add it again.`,
        );
      }
      throw error;
    }
  }

  private async hostKeyTrusted(node: DialableNode, presented: string): Promise<boolean> {
    if (node.hostPublicKey) {
      if (sameKey(presented, node.hostPublicKey)) return true;
      await this.deps.hostKeys.reportHostKeyMismatch(node.id, presented);
      return false;
    }
    // Agentless hosts added by name are trusted on first use; the admin sees the pinned key.
    if (node.subKind === 'openssh') {
      await this.deps.hostKeys.pinHostKey(node.id, presented);
      return true;
    }
    return false;
  }
}

function sameKey(a: string, b: string): boolean {
  return parsePublicKey(a).blob.equals(parsePublicKey(b).blob);
}

/** `ssh-ed25519 AAAA…` from a wire-format key blob (its first field names the type). */
export function keyLineFromBlob(blob: Buffer): string {
  const typeLength = blob.readUInt32BE(0);
  const type = blob.subarray(4, 4 + typeLength).toString('latin1');
  return `${type} ${blob.toString('base64')}`;
}

export function splitHostPort(addr: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(addr);
  if (!match) return { host: addr, port: 22 };
  return { host: match[1]!, port: Number(match[2]) };
}
