import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { refuseUpgrade } from '../../wings/kubernetes/httpstream/raw-response.js';
import { acceptPortForward } from '../../wings/kubernetes/portforward/index.js';
import { acceptExec, parseExecRequest } from '../../wings/kubernetes/remotecommand/index.js';
import type { PodObject } from './kube-objects.testkit.js';
import { runExec } from './pod-processes.testkit.js';
import { forwardToTcp } from './pod-port-forward.testkit.js';
import type { PodStore } from './pod-store.testkit.js';

const streamingPath = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)$/;

export interface StreamingContext {
  pods: PodStore;
  /** Whether WebSocket upgrades are taken (false: kubectl falls back to SPDY). */
  websocket: boolean;
}

/**
 * The upgrades: exec (a local process), attach (the pod's main process) and portforward (a
 * loopback port per container port). Whatever is refused gets a Status on the socket.
 */
export function serveStreaming(
  context: StreamingContext,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  const url = new URL(req.url ?? '/', 'https://fake');
  const match = streamingPath.exec(url.pathname);
  if (!match) {
    refuseUpgrade(socket, 404, 'the server could not find the requested resource');
    return;
  }
  const [, namespace, name, subresource] = match as unknown as [string, string, string, string];
  if (req.method !== 'GET' && req.method !== 'POST') {
    refuseUpgrade(socket, 405, `${req.method} is not supported here`);
    return;
  }
  const pod = context.pods.get(namespace, name);
  if (!pod) {
    refuseUpgrade(socket, 404, `pods "${name}" not found`);
    return;
  }
  if (pod.status.phase !== 'Running') {
    refuseUpgrade(socket, 400, `pod ${name} is not running (phase ${pod.status.phase})`);
    return;
  }
  const refused = () => undefined; // acceptExec and acceptPortForward answered already.
  if (subresource === 'portforward') {
    acceptPortForward(req, socket, head, { websocket: context.websocket }).then((session) => {
      session.onForward((connection) => {
        const target = context.pods.forwardTarget(namespace, name, connection.port);
        if (target === undefined) {
          return connection.fail(
            `error forwarding port ${connection.port} to pod ${name}: the pod does not expose it`,
          );
        }
        forwardToTcp(connection, target, name);
      });
    }, refused);
    return;
  }
  let request;
  try {
    request = parseExecRequest(url.searchParams);
  } catch {
    refuseUpgrade(socket, 400, 'the exec options in the query are not valid');
    return;
  }
  const container = containerOf(pod, request.container);
  if (typeof container !== 'string') {
    refuseUpgrade(socket, 400, container.error);
    return;
  }
  const main = context.pods.mainProcess(namespace, name);
  if (subresource === 'attach' && (!main || container !== pod.spec.containers[0]!.name)) {
    refuseUpgrade(socket, 400, `container ${container} has no process to attach to in this fake`);
    return;
  }
  acceptExec(req, socket, head, { request, websocket: context.websocket }).then((session) => {
    if (subresource === 'attach') main!.attach(session);
    else runExec(session, request.command);
  }, refused);
}

/** The container a request names, or the only one; several without a name is an error. */
function containerOf(pod: PodObject, named: string | undefined): string | { error: string } {
  const names = pod.spec.containers.map((container) => container.name);
  if (named) {
    return names.includes(named)
      ? named
      : { error: `container ${named} is not valid for pod ${pod.metadata.name}` };
  }
  if (names.length === 1) return names[0]!;
  return {
    error: `a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(' ')}]`,
  };
}
