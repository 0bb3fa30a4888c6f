import type { AuthContext, Connection } from 'ssh2';
import {
  judgeUserCertificate,
  sendAuthBanner,
  type CertificatePolicy,
  type CertifiedIdentity,
} from '../../../ssh/user-certificate-login.js';

/** OpenSSH's default MaxAuthTries. */
const maxAuthAttempts = 6;
/** OpenSSH's LoginGraceTime is 120 s; clients with a certificate need far less. */
const loginGraceMs = 30_000;

/**
 * The login rules both of the proxy's SSH servers (the jump host and the inner connection)
 * share: a grace period to log in, at most six refusals, and the refusal's reason told to the
 * client only when it is safe to (`tell`: the certificate is genuine).
 */
export function loginAttempts(
  connection: Connection,
  log: (message: string, fields?: object) => void,
) {
  const grace = setTimeout(() => connection.end(), loginGraceMs);
  connection.on('ready', () => clearTimeout(grace));
  connection.on('close', () => clearTimeout(grace));
  let failures = 0;
  const refuse = (ctx: AuthContext, reason: string, tell: boolean): void => {
    log('ssh proxy login refused', { user: ctx.username, reason });
    if (tell) sendAuthBanner(ctx, `Postern: ${reason}`);
    ctx.reject(['publickey']);
    if (++failures >= maxAuthAttempts) connection.end();
  };
  return {
    refuse,
    /**
     * The start of every login here: a user certificate the policy accepts, and whether the
     * client signed (without, it only asks whether it may), or undefined when the attempt is
     * answered already (another method, or the certificate refused with why).
     */
    certified(
      ctx: AuthContext,
      policy: CertificatePolicy,
    ): { identity: CertifiedIdentity; signed: boolean } | undefined {
      if (ctx.method === 'none') return void ctx.reject(['publickey']);
      if (ctx.method !== 'publickey')
        return void refuse(ctx, `method ${ctx.method} is not allowed`, false);
      const verdict = judgeUserCertificate(ctx, policy);
      if (!verdict.ok) return void refuse(ctx, verdict.reason, verdict.tellClient);
      return { identity: verdict.identity, signed: ctx.signature !== undefined };
    },
  };
}
