import type { KubeLoginResponse } from '@postern/contracts';
import { createServer } from 'node:http';
import { writeFile, mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { PosternHome } from '../../../cli/login/postern-home.js';
import {
  askCodeOn,
  askSessionCode,
  reusedAnswer,
  type AskCode,
} from '../../../cli/login/session-mfa.js';
import { forwardRequest, forwardUpgrade, passedHeaders } from '../upstream/forward.js';
import { directEndpoint, type KubeEndpoint } from '../upstream/kube-endpoint.js';
import { kubeStatus, writeStatus } from '../upstream/kube-status.js';
import { fetchKubeCertificate, issuedCertificate } from './kube-client.js';

/** The certificate is renewed this long before it ends. */
const renewBeforeMs = 10 * 60_000;

/** Where the local endpoint's requests go: the Kubernetes listener, with a certificate it takes. */
interface Upstream {
  endpoint(): Promise<KubeEndpoint>;
  close(): void;
}

/**
 * `postern proxy kube NAME`: plain HTTP on loopback for tools that cannot present a client
 * certificate, each request (upgrades too) passed to the Kubernetes listener with the user's
 * certificate for the cluster. Writes a kubeconfig naming the local endpoint.
 *
 * The certificate is the login's, renewed before it ends; or, when the roles ask for an MFA
 * check for each session, a one-minute checked one, asked for on this command's terminal
 * (`askCode`) when a request comes and the last is older than 45 s. Requests wait for the
 * answer; one that cannot get a certificate is answered with the reason, as a Kubernetes Status.
 */
export async function proxyKube(
  env: NodeJS.ProcessEnv,
  name: string,
  port: number,
  {
    askCode = askCodeOn(),
    log = () => undefined,
  }: {
    askCode?: AskCode;
    /** Where a refused request's reason is also told (this command's terminal). */
    log?: (line: string) => void;
  } = {},
): Promise<{ port: number; kubeconfig: string; close: () => void }> {
  // Under per-session MFA this signs nothing: it says that checked certificates are needed.
  const { answer: first } = await fetchKubeCertificate(env, name);
  const upstream = first.session_mfa_required
    ? checkedUpstream(env, name, askCode)
    : renewedUpstream(env, name, first);
  // kubectl prints the reason (writeStatus answers its discovery in text); it goes to this
  // terminal too, where the code was typed.
  const refuse = (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    log(`a request could not be passed on: ${reason}`);
    return kubeStatus(403, `postern proxy kube: ${reason}`);
  };
  const local = createServer((req, res) => {
    upstream.endpoint().then(
      (endpoint) => forwardRequest(req, res, endpoint, req.url ?? '/', passedHeaders(req.headers)),
      (error: unknown) => writeStatus(res, refuse(error)),
    );
  });
  local.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    // Held until the upstream has answered: forwardUpgrade pipes it on (clients wait for the
    // handshake's answer before they send, but nothing may be lost while a code is asked).
    socket.pause();
    upstream.endpoint().then(
      (endpoint) =>
        forwardUpgrade(req, socket, head, endpoint, req.url ?? '/', passedHeaders(req.headers)),
      (error: unknown) => refuseUpgrade(socket, refuse(error)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    local.once('error', reject);
    local.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (local.address() as AddressInfo).port;
  const proxyHost = new URL(first.server).hostname;
  const kubeconfig = path.join(new PosternHome(env).dir, 'kube', `${proxyHost}-${name}-local.yaml`);
  await mkdir(path.dirname(kubeconfig), { recursive: true, mode: 0o700 });
  await writeFile(kubeconfig, localKubeconfig(name, bound), { mode: 0o600 });
  return {
    port: bound,
    kubeconfig,
    close: () => {
      upstream.close();
      local.close();
    },
  };
}

/** The login's certificate, renewed before it ends (a new one for new connections). */
function renewedUpstream(env: NodeJS.ProcessEnv, name: string, first: KubeLoginResponse): Upstream {
  let current = endpointFor(first);
  let renewal: NodeJS.Timeout | undefined;
  const renewAfter = (answer: KubeLoginResponse) => {
    const wait = Math.max(60_000, Date.parse(answer.expires) - Date.now() - renewBeforeMs);
    renewal = setTimeout(() => void renew().catch(() => renewAfter(answer)), wait);
    renewal.unref();
  };
  const renew = async () => {
    const { answer } = await fetchKubeCertificate(env, name);
    current.close();
    current = endpointFor(answer);
    renewAfter(answer);
  };
  renewAfter(first);
  return {
    endpoint: async () => current,
    close: () => {
      clearTimeout(renewal);
      current.close();
    },
  };
}

/**
 * Checked one-minute certificates, each asked for with a code and used for new connections for
 * 45 s. Connections opened with an earlier one run on (the listener checks a certificate when a
 * connection starts); their endpoints are closed with the proxy.
 */
function checkedUpstream(env: NodeJS.ProcessEnv, name: string, askCode: AskCode): Upstream {
  const opened: KubeEndpoint[] = [];
  const endpoint = reusedAnswer(async () => {
    // The roles may have stopped asking since the proxy started: then no code is needed.
    const { answer: probe } = await fetchKubeCertificate(env, name);
    let answer = probe;
    if (probe.session_mfa_required) {
      const code = await askSessionCode(askCode, `kube ${name}`);
      answer = (await fetchKubeCertificate(env, name, code)).answer;
    }
    const made = endpointFor(answer);
    opened.push(made);
    return made;
  });
  return {
    endpoint,
    close: () => {
      for (const made of opened) made.close();
    },
  };
}

function endpointFor(answer: KubeLoginResponse): KubeEndpoint {
  const { cert, key } = issuedCertificate(answer);
  return directEndpoint({
    server: new URL(answer.server),
    ca: answer.ca,
    servername: answer.tls_server_name,
    insecureSkipVerify: false,
    clientCert: cert,
    clientKey: key,
  });
}

/** An upgrade that cannot start: the Status as an HTTP answer, then the connection closes. */
function refuseUpgrade(socket: Duplex, status: ReturnType<typeof kubeStatus>): void {
  const body = JSON.stringify(status);
  socket.end(
    `HTTP/1.1 ${status.code} ${status.reason}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
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
