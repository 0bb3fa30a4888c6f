import { createServer } from 'node:http';
import { writeFile, mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PosternHome } from '../../../cli/login/postern-home.js';
import { ConfigError } from '../../../config/config-error.js';
import { forwardRequest, forwardUpgrade, passedHeaders } from '../upstream/forward.js';
import { directEndpoint, type KubeEndpoint } from '../upstream/kube-endpoint.js';
import { fetchKubeCertificate, issuedCertificate } from './kube-client.js';

/** The certificate is renewed this long before it ends. */
const renewBeforeMs = 10 * 60_000;

/**
 * `postern proxy kube NAME`: plain HTTP on loopback for tools that cannot present a client
 * certificate, each request (upgrades too) passed to the Kubernetes listener with the user's
 * certificate for the cluster, renewed before it ends. Writes a kubeconfig naming the local
 * endpoint.
 */
export async function proxyKube(
  env: NodeJS.ProcessEnv,
  name: string,
  port: number,
): Promise<{ port: number; kubeconfig: string; close: () => void }> {
  let endpoint: KubeEndpoint | undefined;
  let renewal: NodeJS.Timeout | undefined;
  const renew = async () => {
    const { answer } = await fetchKubeCertificate(env, name);
    if (answer.session_mfa_required) {
      throw new ConfigError(
        `your roles require an MFA check for each session (require_session_mfa), which a plain local endpoint cannot ask for: use kubectl with the context postern kube login ${name} writes`,
      );
    }
    const { cert, key } = issuedCertificate(answer);
    const server = new URL(answer.server);
    endpoint?.close();
    endpoint = directEndpoint({
      server,
      ca: answer.ca,
      servername: answer.tls_server_name,
      insecureSkipVerify: false,
      clientCert: cert,
      clientKey: key,
    });
    const wait = Math.max(60_000, Date.parse(answer.expires) - Date.now() - renewBeforeMs);
    renewal = setTimeout(() => void renew().catch(() => undefined), wait);
    renewal.unref();
    return answer;
  };
  const first = await renew();
  const proxyHost = new URL(first.server).hostname;
  const local = createServer((req, res) => {
    forwardRequest(req, res, endpoint!, req.url ?? '/', passedHeaders(req.headers));
  });
  local.on('upgrade', (req, socket, head) => {
    forwardUpgrade(req, socket, head, endpoint!, req.url ?? '/', passedHeaders(req.headers));
  });
  await new Promise<void>((resolve, reject) => {
    local.once('error', reject);
    local.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (local.address() as AddressInfo).port;
  const kubeconfig = path.join(new PosternHome(env).dir, 'kube', `${proxyHost}-${name}-local.yaml`);
  await mkdir(path.dirname(kubeconfig), { recursive: true, mode: 0o700 });
  await writeFile(kubeconfig, localKubeconfig(name, bound), { mode: 0o600 });
  return {
    port: bound,
    kubeconfig,
    close: () => {
      clearTimeout(renewal);
      local.close();
      endpoint?.close();
    },
  };
}

function localKubeconfig(name: string, port: number): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: http://127.0.0.1:${port}`,
    'users:',
    `- name: ${name}`,
    '  user: {}',
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}`,
    `current-context: ${name}`,
    '',
  ].join('\n');
}
