import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiPaths, sessionMfaSshResponseSchema } from '@postern/contracts';
import { ConfigError } from '../../config/config-error.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { ED25519, formatPublicKey } from '../../ssh/keys.js';
import { signedClient } from './signed-client.js';

/** An ssh session to open: the node as the user named it, and the login. */
export interface SshTarget {
  node: string;
  login: string;
}

/** A certificate file for ssh's `-o CertificateFile=`, and what removes it. */
export interface SessionCertificate {
  file: string;
  remove: () => Promise<void>;
}

/**
 * Per-session MFA for plain ssh (require_session_mfa, docs/cli-login.md): asks the proxy
 * whether these sessions need a fresh second factor; if they do, asks the user for an
 * authenticator code and gets a one-minute certificate, for the login's key, that opens only
 * these sessions. Undefined when none is needed.
 */
export async function sessionMfaCertificate(
  env: NodeJS.ProcessEnv,
  targets: SshTarget[],
  askCode: (question: string) => Promise<string>,
): Promise<SessionCertificate | undefined> {
  const client = await signedClient(env);
  const loginCert = parseCertificate(
    Buffer.from(
      (await readFile(client.profile.cert_path, 'utf8')).trim().split(/\s+/)[1] ?? '',
      'base64',
    ),
  );
  const pubKey = formatPublicKey(ED25519, loginCert.publicKeyBlob);
  const ask = (code?: string) =>
    client.post(
      apiPaths.sessionMfaSsh,
      { targets, pub_key: pubKey, ...(code ? { totp_code: code } : {}) },
      sessionMfaSshResponseSchema,
    );
  if (!(await ask()).required) return undefined;
  const names = targets.map(({ node, login }) => `${login}@${node}`).join(', ');
  const code = (
    await askCode(
      `Your roles require an MFA check for each session. Authenticator code for ${names}: `,
    )
  ).trim();
  if (!/^\d{6,8}$/.test(code))
    throw new ConfigError('expected the 6-digit code from your authenticator app');
  const { cert } = await ask(code);
  if (!cert) throw new ConfigError('the proxy issued no certificate for the session');
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-session-'));
  const file = path.join(dir, 'session-cert.pub');
  await writeFile(file, `${cert}\n`, { mode: 0o600 });
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}
