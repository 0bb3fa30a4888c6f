import {
  apiPaths,
  kubeClusterListResponseSchema,
  kubeLoginResponseSchema,
  type KubeClusterJson,
  type KubeLoginResponse,
} from '@postern/contracts';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { PosternHome } from '../../../cli/login/postern-home.js';
import { signedClient } from '../../../cli/login/signed-client.js';
import { leafNamed } from '../../../cli/login/nodes.js';
import { currentLogin } from '../../../cli/login/session-commands.js';
import { catalogPath } from '../../../cli/login/tunnel-target.js';
import { printTable, labelListCell } from '../../../cli/table.js';
import {
  kubeconfigPath,
  writeKubeContext,
  type KubeContext,
  type KubeUserCredential,
} from './kubeconfig-file.js';

/**
 * Every Kubernetes cluster the user may reach, through the signed catalog (`kubeconnect`), or a
 * trusted leaf's (`cluster`), which the root forwards with the leaf session it grants.
 */
export async function fetchKubeClusters(
  env: NodeJS.ProcessEnv,
  cluster?: string,
): Promise<KubeClusterJson[]> {
  const { get, profile } = await signedClient(env);
  const leaf = leafNamed(cluster, profile);
  const path = catalogPath(apiPaths.kubeCatalog, apiPaths.kubernetes, leaf);
  return (await get(path, kubeClusterListResponseSchema)).items;
}

/**
 * The name the cluster signed in to knows a Kubernetes cluster by: its own, or `prod.lab` for
 * the cluster `prod` of the trusted leaf `lab` (`--cluster lab`).
 */
export async function kubeClusterName(
  env: NodeJS.ProcessEnv,
  name: string,
  cluster: string | undefined,
): Promise<string> {
  const leaf = leafNamed(cluster, await currentLogin(env));
  return leaf ? `${name}.${leaf}` : name;
}

/** `postern kube ls [--cluster LEAF]`. */
export async function listKubeClusters(
  env: NodeJS.ProcessEnv,
  print: (line: string) => void,
  cluster?: string,
) {
  const clusters = await fetchKubeClusters(env, cluster);
  if (clusters.length === 0) return print('No Kubernetes clusters you may reach.');
  printTable(
    ['NAME', 'USERS', 'GROUPS', 'STATUS', 'LABELS'],
    clusters.map((cluster) => [
      cluster.name,
      cluster.kubernetes_users.join(',') || '(your name)',
      cluster.kubernetes_groups.join(',') || '(none)',
      cluster.status,
      labelListCell(cluster.labels),
    ]),
    print,
  );
}

/**
 * A certificate for one cluster from the proxy; with an authenticator code, a one-minute one that
 * passed the roles' per-session MFA check.
 */
export async function fetchKubeCertificate(
  env: NodeJS.ProcessEnv,
  name: string,
  totpCode?: string,
): Promise<{ answer: KubeLoginResponse; proxyHost: string }> {
  const { profile, post } = await signedClient(env);
  const route = apiPaths.kubeLogin(name);
  const body = totpCode ? { totp_code: totpCode } : {};
  const answer = await post(route, body, kubeLoginResponseSchema);
  return { answer, proxyHost: new URL(profile.proxy).hostname };
}

/** The certificate of an answer that must hold one (no per-session MFA, or a checked one). */
export function issuedCertificate(answer: KubeLoginResponse): {
  cert: string;
  key: string;
  expires: string;
} {
  const { cert, key, expires } = answer;
  if (!cert || !key) throw new Error('the proxy answered no certificate for this cluster');
  return { cert, key, expires };
}

/** How kubectl runs this postern again (its credential plugin): the same node and script. */
export interface PosternCommand {
  command: string;
  args: string[];
}

export const thisPostern = (): PosternCommand => ({
  command: process.execPath,
  args: process.argv[1] ? [path.resolve(process.argv[1])] : [],
});

export interface KubeLoginOptions {
  /** Make the context kubectl's current one (the default). */
  setCurrent?: boolean;
  /** What the credential plugin runs, when the roles ask for per-session MFA. */
  postern?: PosternCommand;
}

/**
 * `postern kube login NAME`: a context for the cluster in kubectl's kubeconfig (made current
 * unless told not to), with the CA under ~/.postern/kube. Its client certificate is written
 * there too, unless the roles ask for an MFA check for each session: then the context runs
 * `postern kube credentials` for it, which asks for a code (docs/kubernetes.md).
 */
export async function kubeLogin(
  env: NodeJS.ProcessEnv,
  name: string,
  { setCurrent = true, postern = thisPostern() }: KubeLoginOptions = {},
): Promise<{ context: KubeContext; kubeconfig: string; expires: string; checked: boolean }> {
  const { answer, proxyHost } = await fetchKubeCertificate(env, name);
  const home = new PosternHome(env);
  const files = home.kubeFiles(proxyHost, name);
  await home.writeCertificateFiles(files, answer);
  // A certificate checked under an earlier login or role set is not reused past this login.
  await rm(files.checked, { force: true });
  const checked = answer.session_mfa_required;
  const user: KubeUserCredential = checked
    ? {
        exec: {
          command: postern.command,
          args: [...postern.args, ...credentialArgs(proxyHost, name)],
        },
      }
    : { certFile: files.cert, keyFile: files.key };
  const context: KubeContext = {
    name: kubeContextName(proxyHost, name),
    server: answer.server,
    tlsServerName: answer.tls_server_name,
    caFile: files.ca,
    user,
  };
  const kubeconfig = kubeconfigPath(env);
  await writeKubeContext(kubeconfig, context, setCurrent);
  return { context, kubeconfig, expires: answer.expires, checked };
}

/** `kube credentials NAME --proxy HOST`: the plugin checks the login is still for that proxy. */
const credentialArgs = (proxyHost: string, name: string) => [
  'kube',
  'credentials',
  name,
  '--proxy',
  proxyHost,
];

/** `<proxy host>-<cluster>`: one context per cluster per proxy. */
export const kubeContextName = (proxyHost: string, cluster: string) => `${proxyHost}-${cluster}`;

/**
 * A fresh certificate and context for one cluster, left as it was which context is current:
 * what `postern kube exec` runs kubectl with.
 */
export async function kubeContextFor(env: NodeJS.ProcessEnv, name: string): Promise<string> {
  const { context } = await kubeLogin(env, name, { setCurrent: false });
  return context.name;
}
