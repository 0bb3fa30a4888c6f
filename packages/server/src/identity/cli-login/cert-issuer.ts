import type { SshCertsResponse } from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { accessDenied, badParameter } from '../../errors.js';
import {
  botInstanceOf,
  plainAddress,
  POSTERN_LOGIN_ENDS_EXTENSION,
  POSTERN_MFA_DEVICE_EXTENSION,
  POSTERN_SESSION_MFA_DEVICE_EXTENSION,
  POSTERN_SESSION_MFA_EXTENSION,
  type ClusterCa,
} from '../../ssh/ca.service.js';
import { ED25519, formatPublicKey, parsePublicKey } from '../../ssh/keys.js';
import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { lockMessage, lockText, type LockView } from '../../access-control/locks/lock-watcher.js';

export interface CertIssuerDeps {
  ca: ClusterCa;
  access: Pick<AccessResolver, 'resolve'>;
  locks: LockView;
  audit: AuditStore;
  /**
   * `host:port` of the SSH proxy listener, as ping reports it; read at each issue, since with
   * `--ssh-addr …:0` the port is known only once the listener is up.
   */
  sshProxyAddr: () => string;
  /** known_hosts lines for trusted leaf clusters' servers (`*.<leaf>`), read at each issue. */
  leafHostSigners?: () => string[];
  now: Clock;
}

/** The shortest certificate anyone gets: below it a login would expire while it is made. */
const minimumTtlMs = 60_000;

/**
 * The public key a CLI sends, as the one line we certify (comment dropped). A malformed or
 * non-Ed25519 key is the caller's mistake (400), checked before any password is.
 */
export function certifiableKey(line: string): string {
  let parsed;
  try {
    parsed = parsePublicKey(line);
  } catch (error) {
    throw badParameter(`pub_key: ${(error as Error).message}`);
  }
  if (parsed.type !== ED25519) throw badParameter('pub_key: only ssh-ed25519 keys are accepted');
  return formatPublicKey(ED25519, parsed.blob);
}

/**
 * Issues the user certificate of a user who proved who they are (password and second factor,
 * or a browser's approval): principals are every login their roles allow, the lifetime is at
 * most the roles' max_session_ttl, and the extensions follow the role options, as the web
 * terminal's certificates do.
 */
export class CertIssuer {
  constructor(private readonly deps: CertIssuerDeps) {}

  /**
   * How long a certificate issued now would live: the request capped by the roles'
   * max_session_ttl. The CLI's SSO sign-in makes the user record last at least this long.
   */
  lifetimeMs(user: string, roles: string[], requestedTtlMs: number | undefined): number {
    const { roleSet } = this.deps.access.resolve(user, roles);
    return clampTtl(requestedTtlMs, roleSet.options().maxSessionTtlMs);
  }

  /**
   * `roles` is the user record's, read by the caller: the watched cache the resolver reads may
   * not have seen a user created a moment ago, and would then find no roles at all.
   */
  async issue(args: {
    user: string;
    roles: string[];
    publicKey: string;
    requestedTtlMs: number | undefined;
    addr: string | undefined;
    /** Access requests the certificate assumes, checked by the caller, and when they end. */
    assumed?: { ids: string[]; endsAt: number };
    /**
     * A per-session MFA certificate (require_session_mfa), after the caller checked the second
     * factor: a minute long, for these `login@<node id>` sessions only; `device` answered it.
     */
    session?: { targets: string[]; loginEndsAt: number; device?: string | undefined };
    /** Extensions of the caller's own (a bot's instance and generation). */
    extensions?: Record<string, string>;
    /** The MFA device the login was proven with (or the one of the credential asking). */
    mfaDevice?: string | undefined;
  }): Promise<SshCertsResponse> {
    const assumedIds = args.assumed?.ids ?? [];
    const { roles, roleSet } = this.deps.access.resolve(args.user, args.roles, assumedIds);
    const { mfaDevice } = args;
    const sessionMfaDevice = args.session?.device;
    const botInstance = botInstanceOf(args.extensions ?? {});
    const marks = { mfaDevice, sessionMfaDevice, accessRequests: assumedIds, botInstance };
    const lock = this.deps.locks.lockFor({ user: args.user, roles, ...marks });
    if (lock) {
      const request = lock.spec.target.access_request;
      if (request) throw accessDenied(`access request ${request} is locked: ${lockText(lock)}`);
      throw accessDenied(`your account is locked: ${lockMessage(lock)}`);
    }
    const options = roleSet.options();
    // A certificate that assumes requests lives no longer than their access.
    const maxTtlMs = args.assumed
      ? Math.min(options.maxSessionTtlMs, args.assumed.endsAt - this.deps.now())
      : options.maxSessionTtlMs;
    const ttlMs = args.session
      ? Math.min(sessionMfaCertTtlMs, maxTtlMs)
      : clampTtl(args.requestedTtlMs, maxTtlMs);
    const deviceExtension: Record<string, string> = mfaDevice
      ? { [POSTERN_MFA_DEVICE_EXTENSION]: mfaDevice }
      : {};
    const sessionExtensions: Record<string, string> = args.session
      ? {
          [POSTERN_SESSION_MFA_EXTENSION]: args.session.targets.join(','),
          [POSTERN_LOGIN_ENDS_EXTENSION]: new Date(args.session.loginEndsAt).toISOString(),
          ...(sessionMfaDevice ? { [POSTERN_SESSION_MFA_DEVICE_EXTENSION]: sessionMfaDevice } : {}),
        }
      : {};
    const logins = roleSet.certificateLogins();
    // pin_source_ip: the certificate works only from the address that asked for it.
    if (options.pinSourceIp && !args.addr) {
      throw accessDenied(
        'your roles pin certificates to your address (pin_source_ip), which is unknown',
      );
    }
    const cert = this.deps.ca.issueUserCertificate({
      user: args.user,
      roles,
      accessRequests: assumedIds,
      logins,
      publicKey: args.publicKey,
      ttlMs,
      permitPortForwarding: options.portForwarding,
      permitAgentForwarding: options.forwardAgent,
      ...(options.pinSourceIp && args.addr ? { sourceIp: args.addr } : {}),
      extraExtensions: {
        ...options.certExtensions,
        ...sessionExtensions,
        ...args.extensions,
        ...deviceExtension,
      },
      denyFileCopy: !options.sshFileCopy,
      now: new Date(this.deps.now()),
    });
    await emitAudit(this.deps.audit, 'TC000I', {
      user: args.user,
      cert_type: 'user',
      logins,
      ttl_ms: ttlMs,
      ...(args.session ? { session_mfa: args.session.targets } : {}),
      ...(mfaDevice ? { mfa_device_uuid: mfaDevice } : {}),
      ...(sessionMfaDevice ? { session_mfa_device_uuid: sessionMfaDevice } : {}),
      ...(assumedIds.length ? { access_requests: assumedIds } : {}),
      ...(options.pinSourceIp && args.addr ? { pinned_ip: plainAddress(args.addr) } : {}),
      ...remoteAddr(args.addr),
    });
    return {
      cert,
      ttl_ms: ttlMs,
      host_signers: [this.deps.ca.knownHostsLine(), ...(this.deps.leafHostSigners?.() ?? [])],
      cluster_name: this.deps.ca.clusterName,
      ssh_proxy_addr: this.deps.sshProxyAddr(),
    };
  }
}

/** How long a per-session MFA certificate may be used to start its sessions. */
export const sessionMfaCertTtlMs = 60_000;

const clampTtl = (requested: number | undefined, max: number) =>
  Math.max(minimumTtlMs, Math.min(requested ?? max, max));
