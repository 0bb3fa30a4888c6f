import type { AuthContext, Connection } from 'ssh2';
import { sendAuthBanner } from '../../../ssh/user-certificate-login.js';

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
  return {
    refuse(ctx: AuthContext, reason: string, tell: boolean): void {
      log('ssh proxy login refused', { user: ctx.username, reason });
      if (tell) sendAuthBanner(ctx, `Postern: ${reason}`);
      ctx.reject(['publickey']);
      if (++failures >= maxAuthAttempts) connection.end();
    },
  };
}
