import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiPaths, sessionMfaCertsResponseSchema, type SessionMfaTarget } from '@postern/contracts';
import { ConfigError } from '../../config/config-error.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { ED25519, formatPublicKey } from '../../ssh/keys.js';
import { Prompter, type PromptIo } from './prompt.js';
import { signedClient } from './signed-client.js';

/** Asks the user for an authenticator code, without echo. */
export type AskCode = (question: string) => Promise<string>;

/** Asks on these streams (the terminal's stdin and stderr, unless a test gives its own). */
export function askCodeOn(
  io: PromptIo = { input: process.stdin, output: process.stderr },
): AskCode {
  return async (question) => {
    const prompter = new Prompter(io);
    try {
      return await prompter.secret(question);
    } finally {
      prompter.close();
    }
  };
}

/** Asks for the code of a per-session MFA check for `what`, and checks it looks like one. */
export async function askSessionCode(askCode: AskCode, what: string): Promise<string> {
  const question = `Your roles require an MFA check for each session. Authenticator code for ${what}: `;
  const code = (await askCode(question)).trim();
  if (!/^\d{6,8}$/.test(code)) {
    throw new ConfigError('expected the 6-digit code from your authenticator app');
  }
  return code;
}

/** A certificate file for ssh's `-o CertificateFile=`, and what removes it. */
export interface SessionCertificate {
  file: string;
  remove: () => Promise<void>;
}

/**
 * Per-session MFA from the command line (require_session_mfa, docs/cli-login.md): asks the
 * proxy whether these sessions need a fresh second factor; if they do, asks the user for an
 * authenticator code and returns a one-minute certificate line, for the login's key, that opens
 * only these sessions. Undefined when none is needed.
 */
export async function sessionMfaCertificateLine(
  env: NodeJS.ProcessEnv,
  targets: SessionMfaTarget[],
  askCode: AskCode,
): Promise<string | undefined> {
  const client = await signedClient(env);
  const loginLine = (await readFile(client.profile.cert_path, 'utf8')).trim();
  const loginCert = parseCertificate(Buffer.from(loginLine.split(/\s+/)[1] ?? '', 'base64'));
  const pubKey = formatPublicKey(ED25519, loginCert.publicKeyBlob);
  const ask = (code?: string) =>
    client.post(
      apiPaths.sessionMfaCerts,
      { targets, pub_key: pubKey, ...(code ? { totp_code: code } : {}) },
      sessionMfaCertsResponseSchema,
    );
  if (!(await ask()).required) return undefined;
  const code = await askSessionCode(askCode, targets.map(describe).join(', '));
  const { cert } = await ask(code);
  if (!cert) throw new ConfigError('the proxy issued no certificate for the session');
  return cert;
}

/** The same, written to a file of its own for ssh and scp. */
export async function sessionMfaCertificate(
  env: NodeJS.ProcessEnv,
  targets: SessionMfaTarget[],
  askCode: AskCode,
): Promise<SessionCertificate | undefined> {
  const cert = await sessionMfaCertificateLine(env, targets, askCode);
  if (!cert) return undefined;
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-session-'));
  const file = path.join(dir, 'session-cert.pub');
  await writeFile(file, `${cert}\n`, { mode: 0o600 });
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** How long a per-session certificate is used for new connections: well inside its minute. */
const reuseMs = 45_000;

/**
 * The certificate a tunnel signs each new connection with (`postern db connect`, `postern proxy
 * db|app`): the login's, or, when the roles ask for per-session MFA, a per-session certificate
 * for `target`, asked for with a code when the last one is too old to start a connection.
 */
export function tunnelCertificates(
  env: NodeJS.ProcessEnv,
  target: SessionMfaTarget,
  askCode: AskCode,
  now: () => number = Date.now,
): () => Promise<string | undefined> {
  return reusedAnswer(() => sessionMfaCertificateLine(env, [target], askCode), now);
}

/**
 * `fetch`'s answer, kept for `reuseMs`: a per-session certificate (or what holds one) is used
 * while young enough to start a connection, and an answer of "none needed" is asked again after
 * as long, so roles changed under a running proxy count from then on. Callers that come while it
 * is asked share the one question; a failure is not kept, so the next caller asks again.
 */
export function reusedAnswer<T>(
  fetch: () => Promise<T>,
  now: () => number = Date.now,
): () => Promise<T> {
  let kept: { answer: T; until: number } | undefined;
  let asking: Promise<T> | undefined;
  return async () => {
    if (kept && now() < kept.until) return kept.answer;
    asking ??= fetch().finally(() => (asking = undefined));
    const answer = await asking;
    kept = { answer, until: now() + reuseMs };
    return answer;
  };
}

function describe(target: SessionMfaTarget): string {
  if (!('kind' in target)) return `${target.login}@${target.node}`;
  return `${target.kind} ${target.name}${target.cluster ? ` on ${target.cluster}` : ''}`;
}
