import type { TerminalSize } from '@postern/contracts';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import type { Clock } from '../../../clock.js';
import { emitAuditInBackground } from '../../../modules/audit/emit.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import { Moderation } from '../../../modules/sessions/moderation.js';
import type { LiveSession } from '../../../modules/sessions/live-session.js';
import type { SessionHub } from '../../../modules/sessions/session-hub.js';
import {
  SemaphoreFullError,
  type BackendSemaphore,
  type SemaphoreLease,
} from '../../../backend/semaphore.js';
import type { Impersonation } from '../access/impersonation.js';
import type { KubeRequest } from '../access/kube-request.js';
import { UpgradeFailedError } from '../httpstream/dial-options.js';
import { exitCodeOf, failureStatus } from '../httpstream/status.js';
import { impersonated, type KubeCall } from '../kube-api-proxy.js';
import type { KubeClusterRecord } from '../kube-kind.js';
import {
  acceptExec,
  dialExec,
  execQuery,
  type ExecClientSession,
  type ExecRequest,
  type ExecServerSession,
} from '../remotecommand/index.js';
import type { KubeEndpoint } from '../upstream/kube-endpoint.js';
import { bridgeExec } from './exec-bridge.js';
import { KubeExecChannel } from './kube-exec-channel.js';
import { KubectlParty } from './kubectl-party.js';

export interface KubeExecDeps {
  hub: SessionHub;
  audit: AuditStore;
  clusterName: string;
  now: Clock;
  /** max_kubernetes_connections: leases counted across proxies (absent: not counted). */
  streamLeases?: BackendSemaphore;
}

/** Who opens an exec, and what their roles let the session be. */
export interface ExecOwner {
  user: string;
  roles: string[];
  roleSet: RoleSet;
  /** Judges their access again (locks, roles): a reason ends the session. */
  recheck: () => string | undefined;
}

/** Where an exec goes: the cluster, the pod's path on the API server, who it runs as. */
export interface ExecTarget {
  cluster: KubeClusterRecord;
  endpoint: KubeEndpoint;
  namespace: string;
  pod: string;
  /** `exec` or `attach`. */
  subresource: 'exec' | 'attach';
  impersonation: Impersonation;
  remoteAddr?: string;
}

/** kubectl's first size comes right after the exec starts; a session needs one to begin. */
const firstSizeWaitMs = 500;
const defaultSize: TerminalSize = { w: 80, h: 24 };

/**
 * Kubernetes exec and attach (docs/kubernetes.md, "Exec sessions"). The proxy takes kubectl's
 * exec as the server and opens its own to the cluster, so it sees the stream: with a terminal
 * the pair becomes a live session in the hub (recorded, listed as `k8s`, joinable, ended by
 * locks), without one the streams are relayed and the command's end is audited.
 */
export class KubeExecSessions {
  constructor(private readonly deps: KubeExecDeps) {}

  /** An exec or attach upgrade from kubectl, allowed by the API proxy. */
  async fromKubectl(
    call: KubeCall,
    owner: ExecOwner,
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
  ): Promise<void> {
    const request = call.request as Extract<KubeRequest, { resource: true }>;
    let server: ExecServerSession;
    try {
      server = await acceptExec(req, socket, head);
    } catch {
      // acceptExec answered the client itself (a bad query, no protocol in common).
      return call.done(400);
    }
    const refused =
      (server.tty ? undefined : this.unwatchedProblem(owner, 'a command without a terminal')) ??
      this.drainProblem() ??
      (await this.strictRecordingProblem(owner));
    if (refused) {
      call.done(403);
      await server.finish(failureStatus(refused)).catch(() => server.abort());
      return;
    }
    const limit = await this.leaseStream(owner);
    if ('refused' in limit) {
      call.done(403);
      await server.finish(failureStatus(limit.refused)).catch(() => server.abort());
      return;
    }
    void server.closed.then(() => limit.lease?.release());
    // kubectl sends its size right after the start: listened for now, while the cluster is dialled.
    const sizes = watchSizes(server);
    const target: ExecTarget = {
      cluster: call.cluster,
      endpoint: call.endpoint,
      namespace: request.namespace,
      pod: request.name,
      subresource: request.subresource === 'attach' ? 'attach' : 'exec',
      impersonation: call.impersonation,
      remoteAddr: call.remoteAddr,
    };
    let client: ExecClientSession;
    try {
      client = await this.dial(target, server.request);
    } catch (error) {
      const code = error instanceof UpgradeFailedError ? error.statusCode : 502;
      call.done(code);
      const message = error instanceof Error ? error.message : String(error);
      await server
        .finish(failureStatus(`the cluster refused the exec: ${message}`))
        .catch(() => server.abort());
      return;
    }
    call.done(101);
    if (!server.tty) return this.relay(owner, target, server, client);
    const session = this.live(owner, target, server.request, client, await sizes.first);
    const party: KubectlParty = new KubectlParty(
      server,
      owner.user,
      owner.roles,
      'peer',
      (bytes) => session.ack(party.id, bytes),
      () => session.exit,
    );
    server.stdin?.on('data', (data: Buffer) => session.input(party.id, data));
    sizes.follow((next) => session.resize(party.id, next.w, next.h));
    void server.closed.then(() => session.leave(party.id, 'disconnected'));
    await session.join(party);
  }

  /**
   * Why something a moderator could not watch is refused to a user whose Kubernetes sessions
   * need moderation (docs/moderated-sessions.md): exec or attach without a terminal (`kubectl
   * cp` too), port forwarding. Undefined when their sessions need none.
   */
  unwatchedProblem(owner: Pick<ExecOwner, 'user' | 'roleSet'>, what: string): string | undefined {
    const moderation = Moderation.of(owner, 'k8s');
    if (!moderation.required) return undefined;
    return `${what} is not allowed: your Kubernetes sessions need ${moderation.describe()}; run kubectl exec -it, which they can join`;
  }

  /** Why no exec may start now: the proxy drains before it stops. */
  private drainProblem(): string | undefined {
    try {
      this.deps.hub.assertAccepting();
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  /** record_session k8s `strict` with storage that cannot be written: why the exec is refused. */
  private async strictRecordingProblem(owner: ExecOwner): Promise<string | undefined> {
    if (owner.roleSet.options().recordSession.k8s !== 'strict') return undefined;
    const problem = await this.deps.hub.recordingProblem();
    return problem && `this session must be recorded (record_session: strict), but ${problem}`;
  }

  /**
   * One of the owner's max_kubernetes_connections (exec and attach streams from kubectl, counted
   * on every proxy through the backend), or why not.
   */
  async leaseStream(
    owner: Pick<ExecOwner, 'user' | 'roleSet'>,
  ): Promise<{ lease: SemaphoreLease | undefined } | { refused: string }> {
    const limit = owner.roleSet.options().maxKubernetesConnections;
    if (!limit || !this.deps.streamLeases) return { lease: undefined };
    try {
      return { lease: await this.deps.streamLeases.acquire(owner.user, limit) };
    } catch (error) {
      const refused =
        error instanceof SemaphoreFullError
          ? `too many Kubernetes connections: max_kubernetes_connections allows ${limit} at a time`
          : 'cannot count your Kubernetes connections right now; try again';
      emitAuditInBackground(this.deps.audit, 'T1006W', {
        user: owner.user,
        login: owner.user,
        server_id: 'kubernetes',
        reason: refused,
      });
      return { refused };
    }
  }

  /** An exec from the console's terminal: a live session the browser's party then joins. */
  async forBrowser(
    owner: ExecOwner,
    target: ExecTarget,
    command: string[],
    container: string,
    size: TerminalSize,
  ): Promise<LiveSession> {
    this.deps.hub.assertAccepting();
    const request: ExecRequest = {
      command,
      container: container || undefined,
      stdin: true,
      stdout: true,
      stderr: false,
      tty: true,
    };
    const client = await this.dial(target, request);
    return this.live(owner, target, request, client, size);
  }

  private dial(target: ExecTarget, request: ExecRequest): Promise<ExecClientSession> {
    const pod = `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}`;
    const dialled = target.endpoint.dialTarget(
      `${pod}/${target.subresource}?${execQuery(request).toString()}`,
    );
    return dialExec(dialled.url, {
      request,
      headers: { ...dialled.headers, ...stringHeaders(impersonated(target.impersonation)) },
      tls: dialled.tls,
      createConnection: dialled.createConnection,
    });
  }

  private live(
    owner: ExecOwner,
    target: ExecTarget,
    request: ExecRequest,
    client: ExecClientSession,
    size: TerminalSize,
  ): LiveSession {
    const options = owner.roleSet.options();
    const cluster = target.cluster.metadata.name;
    return this.deps.hub.create({
      kind: 'k8s',
      terminal: size,
      owner: { user: owner.user, roles: owner.roles },
      login: target.impersonation.user,
      node: { id: cluster, hostname: `${cluster}/${target.namespace}/${target.pod}`, addr: '' },
      clusterName: this.deps.clusterName,
      proxyId: this.deps.hub.proxyId,
      traceId: '',
      command: request.command.join(' '),
      // A terminal someone works in, whatever command it runs: its recording plays.
      interactive: true,
      expiresAt: this.deps.now() + options.maxSessionTtlMs,
      idleTimeoutMs: options.clientIdleTimeoutMs,
      recordSession: options.recordSession.k8s,
      channel: new KubeExecChannel(client),
      recheck: owner.recheck,
      moderation: Moderation.of(owner, 'k8s'),
      auditFields: {
        kubernetes_cluster: cluster,
        kubernetes_pod_namespace: target.namespace,
        kubernetes_pod_name: target.pod,
        kubernetes_container: request.container ?? '',
      },
    });
  }

  /** Without a terminal: the streams relayed as they are, the command's end audited. */
  private async relay(
    owner: ExecOwner,
    target: ExecTarget,
    server: ExecServerSession,
    client: ExecClientSession,
  ): Promise<void> {
    const status = await bridgeExec(server, client);
    const code = exitCodeOf(status);
    const cluster = target.cluster.metadata.name;
    emitAuditInBackground(this.deps.audit, code === 0 ? 'T3002I' : 'T3002E', {
      user: owner.user,
      login: target.impersonation.user,
      proto: 'kube',
      command: server.request.command.join(' '),
      exitCode: code ?? -1,
      ...(code === 0 ? {} : { exitError: status.message ?? 'failed' }),
      server_hostname: `${cluster}/${target.namespace}/${target.pod}`,
      kubernetes_cluster: cluster,
      kubernetes_pod_namespace: target.namespace,
      kubernetes_pod_name: target.pod,
      kubernetes_groups: target.impersonation.groups,
      ...(target.remoteAddr ? { 'addr.remote': target.remoteAddr } : {}),
    });
  }
}

/**
 * The sizes kubectl sends: the first (or a default when none comes soon), then each later one
 * to `follow`'s listener; a size given before that listener is there is passed on to it.
 */
function watchSizes(server: ExecServerSession) {
  const valid = (n: number) => Number.isInteger(n) && n > 0 && n < 4096;
  let latest: TerminalSize | undefined;
  let listener: ((size: TerminalSize) => void) | undefined;
  let resolveFirst: (size: TerminalSize) => void = () => undefined;
  const first = new Promise<TerminalSize>((resolve) => (resolveFirst = resolve));
  const timer = setTimeout(() => resolveFirst(defaultSize), firstSizeWaitMs);
  server.onResize(({ width, height }) => {
    if (!valid(width) || !valid(height)) return;
    latest = { w: width, h: height };
    clearTimeout(timer);
    resolveFirst(latest);
    listener?.(latest);
  });
  return {
    first,
    follow(next: (size: TerminalSize) => void) {
      listener = next;
      if (latest) next(latest);
    },
  };
}

function stringHeaders(headers: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' || Array.isArray(value)) out[name] = value as string | string[];
  }
  return out;
}
