import type { PublicKeyAuthContext } from 'ssh2';
import {
  judgeUserCertificate,
  type CertificatePolicy,
  type CertifiedIdentity,
} from '../user-certificate-login.js';
import { resolveLoginAccount, type LoginAccount } from './os-user.js';

export type { CertifiedIdentity } from '../user-certificate-login.js';
export type AuthPolicy = CertificatePolicy;

export type AuthVerdict =
  | { ok: true; identity: CertifiedIdentity; account: LoginAccount }
  /** `tellClient` is set once the certificate is proven genuine: only then may reasons leak. */
  | { ok: false; reason: string; tellClient: boolean };

/**
 * Judges one "publickey" request on a node: a genuine Postern user certificate for the login
 * (see user-certificate-login.ts), and an OS account for that login on this host.
 */
export async function judgePublicKey(
  ctx: PublicKeyAuthContext,
  policy: AuthPolicy,
): Promise<AuthVerdict> {
  const verdict = judgeUserCertificate(ctx, policy);
  if (!verdict.ok) return verdict;
  const resolved = await resolveLoginAccount(ctx.username);
  if (!resolved.ok) return { ok: false, reason: resolved.reason, tellClient: true };
  return { ok: true, identity: verdict.identity, account: resolved.account };
}
