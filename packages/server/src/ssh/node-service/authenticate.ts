import type { PublicKeyAuthContext } from 'ssh2';
import {
  judgeUserCertificate,
  type CertificatePolicy,
  type CertifiedIdentity,
} from '../user-certificate-login.js';
import type { HostUsers } from './host-users.js';
import { resolveLoginAccount, type LoginAccount } from './os-user.js';

export type { CertifiedIdentity } from '../user-certificate-login.js';
export type AuthPolicy = CertificatePolicy;

export type AuthVerdict =
  /**
   * `account` is undefined only on the unsigned check for a login the node will make when the
   * signed request comes (a certificate alone, without its key, makes no user).
   */
  | { ok: true; identity: CertifiedIdentity; account: LoginAccount | undefined }
  /** `tellClient` is set once the certificate is proven genuine: only then may reasons leak. */
  | { ok: false; reason: string; tellClient: boolean };

/**
 * Judges one "publickey" request on a node: a genuine Postern user certificate for the login
 * (see user-certificate-login.ts), and an OS account for that login on this host, which the node
 * makes first when the certificate's grant says it may (host-users.ts).
 */
export async function judgePublicKey(
  ctx: PublicKeyAuthContext,
  policy: AuthPolicy,
  hostUsers?: HostUsers,
): Promise<AuthVerdict> {
  const verdict = judgeUserCertificate(ctx, policy);
  if (!verdict.ok) return verdict;
  const { identity } = verdict;
  let resolved = await resolveLoginAccount(ctx.username);
  const grant = identity.hostUser;
  if (!resolved.ok && grant && hostUsers && process.getuid?.() === 0) {
    if (!ctx.signature) return { ok: true, identity, account: undefined };
    const refused = await hostUsers.ensure(ctx.username, grant);
    if (refused) return { ok: false, reason: refused, tellClient: true };
    resolved = await resolveLoginAccount(ctx.username);
  }
  if (!resolved.ok) return { ok: false, reason: resolved.reason, tellClient: true };
  return { ok: true, identity, account: resolved.account };
}
