import { verify } from 'node:crypto';
import { hostUserOf, type HostUserGrant } from './host-user-extension.js';
import type { AuthContext, PublicKeyAuthContext } from 'ssh2';
import {
  assumedRequestsOf,
  mfaDeviceOf,
  sessionMfaDeviceOf,
  botInstanceOf,
  plainAddress,
  POSTERN_LOGIN_ENDS_EXTENSION,
  POSTERN_NO_FILE_COPY_EXTENSION,
  POSTERN_ROLES_EXTENSION,
  POSTERN_SESSION_MFA_EXTENSION,
  POSTERN_SOURCE_IP_EXTENSION,
} from './ca.service.js';
import {
  ED25519_CERT,
  parseCertificate,
  verifyCertificate,
  verifyCertificateSignature,
} from './certificates.js';
import { ED25519, ed25519PublicKeyObject } from './keys.js';
import { protocolOf, sendRawPayload } from './ssh2-internals.js';
import { SshReader, SshWriter } from './wire.js';

/** Who a certificate says the client is. */
export interface CertifiedIdentity {
  user: string;
  roles: string[];
  /** The access requests the certificate assumed. */
  accessRequests: string[];
  login: string;
  serial: bigint;
  /** When the certificate stops being valid: sessions on it end then at the latest. */
  validBefore: Date;
  /** When it starts being valid: tells a certificate issued before a credentials change. */
  validAfter: Date;
  /** pin_source_ip: the client address it was issued to, when pinned. */
  pinnedIp?: string;
  /** ssh_file_copy: false was in force when it was issued: no sftp, no scp. */
  noFileCopy?: boolean;
  /** A per-session MFA certificate: the `login@<node id>` sessions it may open. */
  sessionMfaTargets?: string[];
  /** On such a certificate: when the login certificate behind it ends. */
  loginEndsAt?: Date;
  /** The MFA device its login was proven with: an `mfa_device` lock refuses it. */
  mfaDevice?: string;
  /** On a per-session MFA certificate: the device that answered its check (the same). */
  sessionMfaDevice?: string;
  /** On a bot's certificate: its instance (a `bot_instance` lock refuses it). */
  botInstance?: string;
  /** On the proxy's dial: what the node may do when the login has no OS user yet. */
  hostUser?: HostUserGrant;
}

export interface CertificatePolicy {
  userCaPublicKeys: () => string[];
  /**
   * What the SSH user name must match: a principal (a login on a node, the default), or the
   * certificate's key id (the Postern user, when the SSH proxy is the jump host).
   */
  userNameIs?: 'login' | 'user';
  lockedMessage?: (target: {
    user: string;
    roles: string[];
    login: string;
    accessRequests: string[];
    mfaDevice?: string;
    sessionMfaDevice?: string;
    botInstance?: string;
  }) => string | undefined;
  now: () => Date;
  /** The client's address: a certificate pinned to another one is refused (pin_source_ip). */
  clientIp?: string;
}

export type CertificateVerdict =
  | { ok: true; identity: CertifiedIdentity }
  /** `tellClient` is set once the certificate is proven genuine: only then may reasons leak. */
  | { ok: false; reason: string; tellClient: boolean };

/**
 * Judges one "publickey" request for a Postern user certificate: CA signature, type, the
 * requested login among its principals, its validity window, no unenforced critical option, no
 * lock, and (on the signed request) the client's signature over the session. The unsigned
 * "publickey -- check" query runs the same checks minus the last, so clients are only told "go
 * ahead, sign" for a certificate that would work. Used by the node service and the SSH proxy.
 */
export function judgeUserCertificate(
  ctx: PublicKeyAuthContext,
  policy: CertificatePolicy,
): CertificateVerdict {
  const refuse = (reason: string, tellClient = false): CertificateVerdict => ({
    ok: false,
    reason,
    tellClient,
  });
  if (ctx.key.algo !== ED25519_CERT) return refuse(`not a certificate (${ctx.key.algo})`);
  let cert;
  try {
    cert = parseCertificate(ctx.key.data);
  } catch (error) {
    return refuse((error as Error).message);
  }
  const caPublicKeys = policy.userCaPublicKeys();
  const genuine = verifyCertificateSignature(cert, caPublicKeys);
  if (!genuine.ok) return refuse(genuine.reason);
  const asUser = policy.userNameIs === 'user';
  const verdict = verifyCertificate(cert, {
    caPublicKeys,
    type: 'user',
    ...(asUser ? {} : { principal: ctx.username }),
    now: policy.now(),
  });
  if (!verdict.ok) return refuse(verdict.reason, true);
  if (asUser && cert.keyId !== ctx.username) {
    return refuse(`certificate is for user ${cert.keyId}, not ${ctx.username}`, true);
  }
  // We enforce no critical option (force-command, source-address…), and a critical option that
  // is not enforced must refuse the login: that is what "critical" means.
  const critical = Object.keys(cert.criticalOptions);
  if (critical.length > 0)
    return refuse(`unsupported critical options: ${critical.join(', ')}`, true);

  const identity: CertifiedIdentity = {
    user: cert.keyId,
    roles: (cert.extensions[POSTERN_ROLES_EXTENSION] ?? '').split(',').filter(Boolean),
    accessRequests: assumedRequestsOf(cert.extensions),
    login: ctx.username,
    serial: cert.serial,
    validBefore: cert.validBefore,
    validAfter: cert.validAfter,
  };
  if (POSTERN_NO_FILE_COPY_EXTENSION in cert.extensions) identity.noFileCopy = true;
  const mfaDevice = mfaDeviceOf(cert.extensions);
  if (mfaDevice) identity.mfaDevice = mfaDevice;
  const sessionMfaDevice = sessionMfaDeviceOf(cert.extensions);
  if (sessionMfaDevice) identity.sessionMfaDevice = sessionMfaDevice;
  const botInstance = botInstanceOf(cert.extensions);
  if (botInstance) identity.botInstance = botInstance;
  const hostUser = hostUserOf(cert.extensions);
  if (hostUser) identity.hostUser = hostUser;
  const mfaTargets = cert.extensions[POSTERN_SESSION_MFA_EXTENSION];
  if (mfaTargets) {
    identity.sessionMfaTargets = mfaTargets.split(',');
    const loginEnds = Date.parse(cert.extensions[POSTERN_LOGIN_ENDS_EXTENSION] ?? '');
    // Never later than its own end plus what the login said; a bad value ends it with itself.
    identity.loginEndsAt = new Date(
      Number.isNaN(loginEnds) ? cert.validBefore.getTime() : loginEnds,
    );
  }
  const pinned = cert.extensions[POSTERN_SOURCE_IP_EXTENSION];
  if (pinned) {
    identity.pinnedIp = pinned;
    const from = policy.clientIp === undefined ? undefined : plainAddress(policy.clientIp);
    if (from !== undefined && from !== pinned) {
      return refuse(
        `this certificate is pinned to ${pinned} (pin_source_ip); you connect from ${from}`,
        true,
      );
    }
  }
  const lockMessage = policy.lockedMessage?.(identity);
  if (lockMessage !== undefined) return refuse(`locked: ${lockMessage}`, true);
  if (ctx.signature && ctx.blob) {
    if (!validSessionSignature(ctx.signature, ctx.blob, cert.publicKeyBlob)) {
      return refuse('signature over the session does not match the certified key');
    }
  }
  return { ok: true, identity };
}

/**
 * ssh2 strips the signature's algorithm label only when it equals the request's algorithm; for a
 * certificate the label is `ssh-ed25519` while the algorithm is the certificate's, so the label
 * is still there and we read it ourselves (a bare 64-byte signature is accepted too).
 */
function validSessionSignature(signature: Buffer, signedData: Buffer, keyBlob: Buffer): boolean {
  let raw = signature;
  if (signature.length !== 64) {
    try {
      const reader = new SshReader(signature, 'signature');
      if (reader.text() !== ED25519) return false;
      raw = reader.string();
      reader.end();
    } catch {
      return false;
    }
  }
  return verify(null, signedData, ed25519PublicKeyObject(keyBlob), raw);
}

const USERAUTH_BANNER = 53;

/**
 * A userauth banner (RFC 4252 §5.4) is the only way to tell a client why it was refused before
 * login; OpenSSH prints it, and our client puts it in its error. Send it only for certificates
 * that are genuine, so strangers learn nothing.
 */
export function sendAuthBanner(ctx: AuthContext, message: string): void {
  try {
    const payload = new SshWriter()
      .byte(USERAUTH_BANNER)
      .string(`${message}\r\n`)
      .string('')
      .toBuffer();
    sendRawPayload(protocolOf(ctx), payload);
  } catch {
    // The connection is gone or ssh2 changed: the refusal itself still goes out.
  }
}
