import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { PosternHome } from '../../../cli/login/postern-home.js';
import { askSessionCode, type AskCode } from '../../../cli/login/session-mfa.js';
import { currentLogin } from '../../../cli/login/session-commands.js';
import { ConfigError } from '../../../config/config-error.js';
import { fetchKubeCertificate, issuedCertificate } from './kube-client.js';

/** A client certificate as kubectl is handed it. */
const certificateSchema = z.object({ cert: z.string(), key: z.string(), expires: z.string() });
type KubeCertificate = z.infer<typeof certificateSchema>;

/** A checked certificate as kept, with the login it was asked under. */
const keptSchema = certificateSchema.extend({ user: z.string(), login_expires: z.string() });

/**
 * A checked certificate is handed out again while this much of its minute is left: kubectl opens
 * its connections within a few seconds of starting, and asks again once it has ended.
 */
const reuseMarginMs = 15_000;

export interface KubeCredentialsOptions {
  askCode: AskCode;
  /** Whether there is a terminal to ask on (kubectl says so in KUBERNETES_EXEC_INFO). */
  interactive: boolean;
  now?: () => number;
}

/**
 * `postern kube credentials NAME --proxy HOST`, the credential plugin kubectl runs for a context
 * `postern kube login` wrote when the roles ask for an MFA check for each session: prints
 * client-go's ExecCredential with a client certificate. A one-minute certificate that passed the
 * check is kept and handed out again for most of its minute; after that the plugin asks for a
 * new code, on kubectl's terminal. When the roles no longer ask, it hands out the login's
 * certificate without a question.
 */
export async function kubeCredentials(
  env: NodeJS.ProcessEnv,
  name: string,
  proxyHost: string,
  { askCode, interactive, now = Date.now }: KubeCredentialsOptions,
): Promise<string> {
  const profile = await currentLogin(env, now());
  const loggedInTo = new URL(profile.proxy).hostname;
  if (loggedInTo !== proxyHost) {
    throw new ConfigError(
      `this kubectl context is for the proxy ${proxyHost}, but you are logged in to ${loggedInTo}: run postern login --proxy ${proxyHost}`,
    );
  }
  const file = new PosternHome(env).kubeFiles(proxyHost, name).checked;
  const kept = await readKept(file);
  // Only under the same login: another user's, or an earlier sign-in's, is never handed out.
  const sameLogin = kept?.user === profile.user && kept.login_expires === profile.expires;
  if (kept && sameLogin && Date.parse(kept.expires) - now() > reuseMarginMs) {
    return execCredential(kept);
  }
  // Under per-session MFA this signs nothing: it only says whether a code is needed.
  const { answer } = await fetchKubeCertificate(env, name);
  if (!answer.session_mfa_required) return execCredential(issuedCertificate(answer));
  if (!interactive) {
    throw new ConfigError(
      `your roles require an MFA check for each session (require_session_mfa), and kubectl has no terminal to ask for your code on: run kubectl in a terminal, or postern kube exec`,
    );
  }
  const code = await askSessionCode(askCode, `kube ${name}`);
  const certificate = issuedCertificate((await fetchKubeCertificate(env, name, code)).answer);
  const login = { user: profile.user, login_expires: profile.expires };
  await new PosternHome(env).writeSecret(file, JSON.stringify({ ...certificate, ...login }));
  return execCredential(certificate);
}

/**
 * Whether kubectl gave the plugin its terminal: `spec.interactive` of KUBERNETES_EXEC_INFO, or,
 * run by hand, whether stdin is a terminal.
 */
export function kubectlIsInteractive(env: NodeJS.ProcessEnv, stdinIsTerminal: boolean): boolean {
  const info = env.KUBERNETES_EXEC_INFO;
  if (!info) return stdinIsTerminal;
  try {
    return (JSON.parse(info) as { spec?: { interactive?: unknown } }).spec?.interactive === true;
  } catch {
    return false;
  }
}

/** client-go's ExecCredential (client.authentication.k8s.io/v1), one line of JSON. */
function execCredential({ cert, key, expires }: KubeCertificate): string {
  return JSON.stringify({
    apiVersion: 'client.authentication.k8s.io/v1',
    kind: 'ExecCredential',
    status: { clientCertificateData: cert, clientKeyData: key, expirationTimestamp: expires },
  });
}

async function readKept(file: string): Promise<z.infer<typeof keptSchema> | undefined> {
  try {
    const parsed = keptSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
