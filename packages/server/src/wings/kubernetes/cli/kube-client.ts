import {
  apiPaths,
  kubeClusterListResponseSchema,
  kubeLoginResponseSchema,
  type KubeClusterJson,
  type KubeLoginResponse,
} from '@postern/contracts';
import { PosternHome } from '../../../cli/login/postern-home.js';
import { signedClient } from '../../../cli/login/signed-client.js';
import { printTable, labelListCell } from '../../../cli/table.js';
import { kubeconfigPath, writeKubeContext, type KubeContext } from './kubeconfig-file.js';

/** Every Kubernetes cluster the user may reach, through the signed catalog (`kubeconnect`). */
export async function fetchKubeClusters(env: NodeJS.ProcessEnv): Promise<KubeClusterJson[]> {
  const { get } = await signedClient(env);
  const pathAndQuery = `${apiPaths.kubeCatalog}?limit=1000`;
  const answer = await get(pathAndQuery, kubeClusterListResponseSchema);
  return answer.items;
}

/** `postern kube ls`. */
export async function listKubeClusters(env: NodeJS.ProcessEnv, print: (line: string) => void) {
  const clusters = await fetchKubeClusters(env);
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

/** A certificate for one cluster from the proxy, and where its files go. */
export async function fetchKubeCertificate(
  env: NodeJS.ProcessEnv,
  name: string,
): Promise<{ answer: KubeLoginResponse; proxyHost: string }> {
  const { profile, post } = await signedClient(env);
  const path = apiPaths.kubeLogin(name);
  const answer = await post(path, {}, kubeLoginResponseSchema);
  return { answer, proxyHost: new URL(profile.proxy).hostname };
}

/**
 * `postern kube login NAME`: a certificate for the cluster, written under ~/.postern/kube, and a
 * kubeconfig context using it (made current unless `setCurrent` is false).
 */
export async function kubeLogin(
  env: NodeJS.ProcessEnv,
  name: string,
  setCurrent = true,
): Promise<{ context: KubeContext; kubeconfig: string; expires: string }> {
  const { answer, proxyHost } = await fetchKubeCertificate(env, name);
  const home = new PosternHome(env);
  const files = home.kubeFiles(proxyHost, name);
  await home.writeCertificateFiles(files, answer);
  const context: KubeContext = {
    name: kubeContextName(proxyHost, name),
    server: answer.server,
    tlsServerName: answer.tls_server_name,
    caFile: files.ca,
    certFile: files.cert,
    keyFile: files.key,
  };
  const kubeconfig = kubeconfigPath(env);
  await writeKubeContext(kubeconfig, context, setCurrent);
  return { context, kubeconfig, expires: answer.expires };
}

/** `<proxy host>-<cluster>`: one context per cluster per proxy. */
export const kubeContextName = (proxyHost: string, cluster: string) => `${proxyHost}-${cluster}`;

/**
 * A fresh certificate and context for one cluster, left as it was which context is current:
 * what `postern kube exec` runs kubectl with.
 */
export async function kubeContextFor(env: NodeJS.ProcessEnv, name: string): Promise<string> {
  const { context } = await kubeLogin(env, name, false);
  return context.name;
}
