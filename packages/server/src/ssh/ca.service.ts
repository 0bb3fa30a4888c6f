import { randomBytes } from 'node:crypto';
import {
  encodeHostUser,
  POSTERN_HOST_USER_EXTENSION,
  type HostUserGrant,
} from './host-user-extension.js';
import type { Backend } from '../backend/index.js';
import {
  CertAuthorityStore,
  type CertAuthorityResource,
  type CertAuthorityType,
} from './ca.store.js';
import { signCertificate } from './certificates.js';
import { formatPublicKey, generateEd25519Key, parsePublicKey } from './keys.js';

/**
 * A non-critical certificate extension carrying the user's Postern roles. OpenSSH ignores
 * extensions it does not know; our node service reads it to apply role locks.
 */
export const POSTERN_ROLES_EXTENSION = 'postern-roles@postern.dev';
/** Another, naming the access requests the certificate assumed (comma-separated ids). */
export const POSTERN_REQUESTS_EXTENSION = 'postern-access-requests@postern.dev';

/**
 * `pin_source_ip`: the client address a user certificate was issued to (an extension, not a
 * critical option: our own judge refuses critical options it does not know, and the SSH proxy
 * and signed requests enforce this one themselves).
 */
export const POSTERN_SOURCE_IP_EXTENSION = 'postern-source-ip@postern.dev';
/**
 * `ssh_file_copy: false`: nodes that read it (the node service) refuse the sftp subsystem and
 * scp on the certificate; the SSH proxy refuses them itself for OpenSSH hosts.
 */
export const POSTERN_NO_FILE_COPY_EXTENSION = 'postern-no-file-copy@postern.dev';
/**
 * A per-session MFA certificate (require_session_mfa): the sessions it may open, separated by
 * commas: `login@<node id>` through the SSH proxy, `db:<name>` and `app:<name>` tunnels.
 */
export const POSTERN_SESSION_MFA_EXTENSION = 'postern-session-mfa@postern.dev';
/**
 * On a per-session MFA certificate: when the login certificate it was asked for with ends
 * (RFC 3339), so disconnect_expired_cert still ends its sessions then, not a minute in.
 */
export const POSTERN_LOGIN_ENDS_EXTENSION = 'postern-login-ends@postern.dev';
/**
 * A bot's certificate (identity/bots/): which running copy of the bot it belongs to, and which of
 * that copy's certificates it is (the renewal must present the latest).
 */
export const POSTERN_BOT_INSTANCE_EXTENSION = 'postern-bot-instance@postern.dev';
/**
 * The id of the MFA device the certificate's login was proven with: an `mfa_device` lock on it
 * locks the certificate. Certificates issued on the strength of another (access requests assumed,
 * per-session MFA, Kubernetes and database certificates) inherit it.
 */
export const POSTERN_MFA_DEVICE_EXTENSION = 'postern-mfa-device@postern.dev';
/** The device that answered the check a per-session MFA certificate was issued after. */
export const POSTERN_SESSION_MFA_DEVICE_EXTENSION = 'postern-session-mfa-device@postern.dev';
export const POSTERN_BOT_GENERATION_EXTENSION = 'postern-bot-generation@postern.dev';
/** An address as one form: `::ffff:127.0.0.1` (an IPv4 client on a dual-stack socket) is `127.0.0.1`. */
export const plainAddress = (addr: string) => addr.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/** The MFA device a user certificate's login was proven with, when one was. */
export const mfaDeviceOf = (extensions: Record<string, string>): string | undefined =>
  extensions[POSTERN_MFA_DEVICE_EXTENSION] || undefined;

/** The device that answered a per-session MFA certificate's check, when one did. */
export const sessionMfaDeviceOf = (extensions: Record<string, string>): string | undefined =>
  extensions[POSTERN_SESSION_MFA_DEVICE_EXTENSION] || undefined;

/** The bot instance a bot's certificate was issued to (a `bot_instance` lock names it). */
export const botInstanceOf = (extensions: Record<string, string>): string | undefined =>
  extensions[POSTERN_BOT_INSTANCE_EXTENSION] || undefined;

/** The access requests a user certificate's extensions name. */
export const assumedRequestsOf = (extensions: Record<string, string>) =>
  (extensions[POSTERN_REQUESTS_EXTENSION] ?? '').split(',').filter(Boolean);

/** Certificates start a minute in the past so a node whose clock runs a little behind accepts them. */
export const CLOCK_SKEW_MS = 60_000;

export interface IssueUserCertificateOptions {
  /** The Postern user name: the certificate's key id. */
  user: string;
  roles: string[];
  /** Access requests it assumed: their roles count while they are approved. */
  accessRequests?: string[];
  /** OS logins: the certificate's principals. */
  logins: string[];
  /** OpenSSH line of the user's (usually throwaway) Ed25519 key. */
  publicKey: string;
  ttlMs: number;
  permitPortForwarding?: boolean;
  permitAgentForwarding?: boolean;
  /** ssh_file_copy: false; the certificate says so to nodes that read it. */
  denyFileCopy?: boolean;
  /** pin_source_ip: the only client address the certificate works from. */
  sourceIp?: string;
  /** The roles' cert_extensions; Postern's own extensions win over one of the same name. */
  extraExtensions?: Record<string, string>;
  /** For a node the proxy dials: what it may do when the login has no OS user yet. */
  hostUser?: HostUserGrant;
  now?: Date;
}

export interface IssueHostCertificateOptions {
  publicKey: string;
  /** Names clients reach the host by (hostnames, addresses). */
  principals: string[];
  ttlMs: number;
  hostId: string;
  now?: Date;
}

/**
 * The cluster's two SSH certificate authorities: the user CA signs the short-lived certificates
 * Postern logs in to nodes with (nodes trust it through `TrustedUserCAKeys`), the host CA signs
 * node host keys (clients trust it through a `@cert-authority` known_hosts line).
 */
export class ClusterCa {
  private constructor(
    readonly clusterName: string,
    private readonly userCa: CertAuthorityResource,
    private readonly hostCa: CertAuthorityResource,
  ) {}

  /** Reads both CAs, creating whichever is missing (first start); safe to race across processes. */
  static async loadOrCreate(backend: Backend, clusterName: string): Promise<ClusterCa> {
    const store = new CertAuthorityStore(backend);
    const load = async (type: CertAuthorityType) =>
      (await store.get(type)) ?? (await store.createOrGet(newCertAuthority(type, clusterName)));
    const userCa = await load('user');
    const hostCa = await load('host');
    return new ClusterCa(clusterName, userCa, hostCa);
  }

  get userCaPublicKey(): string {
    return this.userCa.spec.publicKey;
  }

  get hostCaPublicKey(): string {
    return this.hostCa.spec.publicKey;
  }

  issueUserCertificate(opts: IssueUserCertificateOptions): string {
    const now = opts.now ?? new Date();
    const extensions: Record<string, string> = {
      ...opts.extraExtensions,
      'permit-pty': '',
      [POSTERN_ROLES_EXTENSION]: opts.roles.join(','),
    };
    if (opts.accessRequests?.length) {
      extensions[POSTERN_REQUESTS_EXTENSION] = opts.accessRequests.join(',');
    }
    if (opts.permitPortForwarding) extensions['permit-port-forwarding'] = '';
    if (opts.permitAgentForwarding) extensions['permit-agent-forwarding'] = '';
    if (opts.denyFileCopy) extensions[POSTERN_NO_FILE_COPY_EXTENSION] = '';
    if (opts.sourceIp) extensions[POSTERN_SOURCE_IP_EXTENSION] = plainAddress(opts.sourceIp);
    // Only the proxy's dial grants it: never a role's cert_extensions.
    delete extensions[POSTERN_HOST_USER_EXTENSION];
    if (opts.hostUser) extensions[POSTERN_HOST_USER_EXTENSION] = encodeHostUser(opts.hostUser);
    return signCertificate(this.userCa.spec.privateKeyPem, {
      type: 'user',
      publicKey: opts.publicKey,
      keyId: opts.user,
      principals: opts.logins,
      validAfter: new Date(now.getTime() - CLOCK_SKEW_MS),
      validBefore: new Date(now.getTime() + opts.ttlMs),
      extensions,
      serial: randomSerial(),
    });
  }

  issueHostCertificate(opts: IssueHostCertificateOptions): string {
    const now = opts.now ?? new Date();
    return signCertificate(this.hostCa.spec.privateKeyPem, {
      type: 'host',
      publicKey: opts.publicKey,
      keyId: opts.hostId,
      principals: opts.principals,
      validAfter: new Date(now.getTime() - CLOCK_SKEW_MS),
      validBefore: new Date(now.getTime() + opts.ttlMs),
      serial: randomSerial(),
    });
  }

  /** One line for the file sshd's `TrustedUserCAKeys` names. */
  trustedUserCaKeysLine(): string {
    return withComment(this.userCaPublicKey, `postern-user-ca@${this.clusterName}`);
  }

  /** A known_hosts line that trusts every host certificate from the host CA. */
  knownHostsLine(): string {
    return `@cert-authority * ${withComment(this.hostCaPublicKey, 'postern-host-ca')}`;
  }
}

function newCertAuthority(type: CertAuthorityType, clusterName: string): CertAuthorityResource {
  const { privateKeyPem, publicKey } = generateEd25519Key();
  return {
    kind: 'cert_authority',
    version: 'v2',
    metadata: { name: type },
    spec: { type, clusterName, publicKey, privateKeyPem },
  };
}

function withComment(line: string, comment: string): string {
  const { type, blob } = parsePublicKey(line);
  return formatPublicKey(type, blob, comment.replace(/\s+/g, '_'));
}

/** Random serials let an audit trail tell certificates apart (OpenSSH logs the serial). */
const randomSerial = () => randomBytes(8).readBigUInt64BE();
