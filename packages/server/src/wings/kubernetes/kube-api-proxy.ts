import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { isImpersonationHeader, type Impersonation } from './access/impersonation.js';
import { authorizeKubeCall } from './access/kube-authorizer.js';
import type { KubeRequest } from './access/kube-request.js';
import { readCreatedObject } from './access/created-object.js';
import { describeKubeRequest, type KubeItem } from './access/kube-verdict.js';
import { readableAnswerHeaders, relayFilteredList, WatchFilter } from './access/list-filter.js';
import { certifiedKubeUser, type CertifiedKubeUser } from './kube-ca.js';
import type { KubeClusterRecord } from './kube-kind.js';
import { kubePathPrefix, splitKubeUrl } from './kube-path.js';
import type { KubeRequestAudit } from './kube-request-audit.js';
import { forwardRequest, forwardUpgrade, passedHeaders, rawResponse } from './upstream/forward.js';
import type { KubeEndpoint } from './upstream/kube-endpoint.js';
import { kubeStatus, writeStatus, type KubeStatus } from './upstream/kube-status.js';

/** Who a certificate's user is now: their roles, or why they may no longer act (401 or 403). */
export type KubeIdentity =
  { user: string; roleSet: RoleSet; roles: string[] } | { refused: string; code: 401 | 403 };

/**
 * Who a request is from: a client certificate's user on the Kubernetes listener, or a trusted
 * root's user whose request came through the root's tunnel (leaf-kube.ts).
 */
export interface KubeCaller {
  user: string;
  /** The cluster the credential is for: the request must name it. */
  cluster: string;
  /** Who they are now (asked again while a request stays open). */
  identify(): KubeIdentity;
}

/** An allowed request, ready to go to the cluster. */
export interface KubeCall {
  identity: { user: string; roleSet: RoleSet; roles: string[] };
  cluster: KubeClusterRecord;
  endpoint: KubeEndpoint;
  /** The API path and query, below the cluster's prefix. */
  path: string;
  request: KubeRequest;
  impersonation: Impersonation;
  /** The headers to send: the client's, without credentials, with the impersonation. */
  headers: OutgoingHttpHeaders;
  remoteAddr?: string;
  /** Records the answer's status in the audit log. */
  done(status: number): void;
  /** Judges the request again (a lock, a role change): a reason ends what it opened. */
  recheck(): string | undefined;
}

export interface KubeApiProxyDeps {
  clusters: { get(name: string): KubeClusterRecord | undefined };
  endpointFor(cluster: KubeClusterRecord): KubeEndpoint;
  identify(cert: CertifiedKubeUser): KubeIdentity;
  audit: KubeRequestAudit;
  /** Keeps a long-lived request under the access re-checks (locks, roles); returns the stop. */
  guard(caller: KubeCaller, revoke: (why: string) => void): () => void;
  /**
   * A request whose certificate names a trusted leaf's cluster (`prod.lab`): sent to the leaf
   * through its tunnel, where the leaf's roles decide (leaf-kube.ts). Undefined for any other.
   */
  leaf?: {
    claims(cluster: string): boolean;
    request(req: IncomingMessage, res: ServerResponse, cert: CertifiedKubeUser): void;
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, cert: CertifiedKubeUser): void;
  };
  /** Interactive exec and attach, as live sessions; absent, they are relayed as they are. */
  exec?(call: KubeCall, req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * One of the user's max_kubernetes_connections for a port-forward (exec and attach take
   * theirs in `exec`): a release to call when it closes, or why it is refused.
   */
  streamLease?(call: KubeCall): Promise<{ release?: () => Promise<void> } | { refused: string }>;
}

/** A judged create refused: audited with its status, answered in Kubernetes terms. */
function refuseCreate(
  req: IncomingMessage,
  res: ServerResponse,
  call: KubeCall,
  refusal: KubeStatus,
): void {
  call.done(refusal.code);
  writeStatus(res, refusal);
  // A body left unread (one over the limit) must not hold the connection open.
  if (!req.complete) res.once('finish', () => req.destroy());
}

/**
 * The Kubernetes API proxy (docs/kubernetes.md): every request from kubectl, on the Kubernetes
 * listener, with a client certificate from `postern kube login`. It checks who the certificate
 * names and that it is for this cluster, the roles' labels, users, groups and
 * `kubernetes_resources`, then forwards the request with the cluster's own credential and the
 * impersonation headers the roles allow; refusals are Kubernetes Status answers kubectl prints.
 */
export class KubeApiProxy {
  constructor(private readonly deps: KubeApiProxyDeps) {}

  request(req: IncomingMessage, res: ServerResponse): void {
    const refuse = (status: KubeStatus) => writeStatus(res, status);
    const cert = this.certified(req, refuse);
    if (!cert) return;
    if (this.deps.leaf?.claims(cert.cluster)) return this.deps.leaf.request(req, res, cert);
    this.serve(req, res, this.certCaller(cert));
  }

  /** A request from `caller`, whose URL is `/kube/<cluster>/…`. */
  serve(req: IncomingMessage, res: ServerResponse, caller: KubeCaller): void {
    const call = this.authorize(req, caller, (status) => writeStatus(res, status));
    if (!call) return;
    const stopGuard = this.guardUntilClosed(res.socket, caller);
    res.on('close', stopGuard);
    if (call.judgeCreated) return this.relayJudgedCreate(req, res, call, call.judgeCreated);
    if (!call.filter) {
      return forwardRequest(req, res, call.endpoint, call.path, call.headers, call.done);
    }
    this.relayFiltered(req, res, call, call.filter);
  }

  /** A create the roles allow for some names: the object's name, from its body, decides. */
  private relayJudgedCreate(
    req: IncomingMessage,
    res: ServerResponse,
    call: KubeCall,
    judge: (item: KubeItem) => boolean,
  ): void {
    const { request } = call;
    // Only a resource's create is judged by name (kube-verdict.ts); nothing else comes here.
    if (!request.resource) return refuseCreate(req, res, call, kubeStatus(400, 'not a create'));
    const { namespace } = request;
    void readCreatedObject(req, namespace).then((created) => {
      if (res.destroyed) return;
      if ('refused' in created) return refuseCreate(req, res, call, created.refused);
      if (!judge({ namespace, name: created.name })) {
        const what = describeKubeRequest({ ...request, name: created.name }, 'create');
        return refuseCreate(req, res, call, kubeStatus(403, `your roles do not allow ${what}`));
      }
      forwardRequest(req, res, call.endpoint, call.path, call.headers, call.done, created.body);
    });
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    const refuse = (status: KubeStatus) => socket.end(rawResponse(status.code, status));
    const cert = this.certified(req, refuse);
    if (!cert) return;
    if (this.deps.leaf?.claims(cert.cluster)) {
      return this.deps.leaf.upgrade(req, socket, head, cert);
    }
    this.serveUpgrade(req, socket, head, this.certCaller(cert));
  }

  /** An upgrade (exec, attach, port forwarding) from `caller`. */
  serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, caller: KubeCaller): void {
    socket.on('error', () => undefined);
    const refuse = (status: KubeStatus) => socket.end(rawResponse(status.code, status));
    const call = this.authorize(req, caller, refuse);
    if (!call) return;
    const stopGuard = this.guardUntilClosed(socket, caller);
    socket.once('close', stopGuard);
    const { request } = call;
    const interactive =
      request.resource &&
      request.plural === 'pods' &&
      (request.subresource === 'exec' || request.subresource === 'attach');
    if (interactive && this.deps.exec) return this.deps.exec(call, req, socket, head);
    const counted = request.resource && request.subresource === 'portforward';
    if (!counted || !this.deps.streamLease) {
      return forwardUpgrade(req, socket, head, call.endpoint, call.path, call.headers, call.done);
    }
    void this.deps.streamLease(call).then((lease) => {
      if ('refused' in lease) {
        call.done(403);
        return void socket.end(rawResponse(403, kubeStatus(403, lease.refused)));
      }
      socket.once('close', () => void lease.release?.());
      forwardUpgrade(req, socket, head, call.endpoint, call.path, call.headers, call.done);
    });
  }

  /** Filtered listings and watches: the API server's JSON is read and passed on in part. */
  private relayFiltered(
    req: IncomingMessage,
    res: ServerResponse,
    call: KubeCall,
    filter: (item: KubeItem) => boolean,
  ): void {
    const upstream = call.endpoint.request(
      req.method ?? 'GET',
      call.path,
      readableAnswerHeaders(call.headers),
    );
    upstream.on('response', (answer) => {
      call.done(answer.statusCode ?? 502);
      if (call.request.resource && call.request.verb === 'watch' && answer.statusCode === 200) {
        const { 'content-length': _length, ...headers } = answer.headers;
        res.writeHead(200, passedHeaders(headers));
        res.flushHeaders();
        answer.pipe(new WatchFilter(filter)).pipe(res);
        return;
      }
      relayFilteredList(answer, res, filter);
    });
    upstream.on('error', (error) => {
      if (res.headersSent) return void res.destroy();
      call.done(502);
      writeStatus(
        res,
        kubeStatus(502, `the Kubernetes API server could not be reached: ${error.message}`),
      );
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  /**
   * Everything a request must pass before it goes to the cluster; a refusal is answered through
   * `refuse` (and audited once the user is known) and gives undefined.
   */
  private authorize(
    req: IncomingMessage,
    caller: KubeCaller,
    refuse: (status: KubeStatus) => void,
  ):
    | (KubeCall & {
        filter?: (item: KubeItem) => boolean;
        judgeCreated?: (item: KubeItem) => boolean;
      })
    | undefined {
    const remoteAddr = req.socket.remoteAddress;
    const { cluster: name, path } = splitKubeUrl(req.url ?? '/');
    const audited = (status: number, request?: KubeRequest, impersonation?: Impersonation) =>
      this.deps.audit.record({
        user: caller.user,
        cluster: name,
        method: req.method ?? 'GET',
        path: path.split('?')[0]!,
        request,
        impersonation,
        status,
        remoteAddr,
      });
    const refuseAndAudit = (code: number, message: string, request?: KubeRequest) => {
      audited(code, request);
      refuse(kubeStatus(code, message));
      return undefined;
    };
    if (!name) return refuseAndAudit(404, `name a cluster: ${kubePathPrefix}<cluster>/…`);
    if (name !== caller.cluster) {
      return refuseAndAudit(
        403,
        `this certificate is for Kubernetes cluster ${caller.cluster}, not ${name}: run postern kube login ${name}`,
      );
    }
    const identity = caller.identify();
    if ('refused' in identity) return refuseAndAudit(identity.code, identity.refused);
    const cluster = this.deps.clusters.get(name);
    if (!cluster) return refuseAndAudit(403, `your roles do not reach Kubernetes cluster ${name}`);
    const authorized = authorizeKubeCall(
      identity,
      cluster,
      req.method ?? 'GET',
      path,
      req.headersDistinct,
    );
    if (!authorized.ok) {
      return refuseAndAudit(authorized.code, authorized.message, authorized.request);
    }
    const { request, impersonation, filter, judgeCreated } = authorized;
    const headers = {
      ...passedHeaders(req.headers, isCredentialHeader),
      ...impersonated(impersonation),
    };
    return {
      identity,
      cluster,
      endpoint: this.deps.endpointFor(cluster),
      path,
      request,
      impersonation,
      headers,
      remoteAddr,
      filter,
      judgeCreated,
      done: (status) => audited(status, request, impersonation),
      recheck: () => {
        const now = caller.identify();
        if ('refused' in now) return now.refused;
        const again = authorizeKubeCall(
          now,
          cluster,
          req.method ?? 'GET',
          path,
          req.headersDistinct,
        );
        return again.ok ? undefined : again.message;
      },
    };
  }

  /** A lock or lost access ends a request still open (a watch, logs, port forwarding). */
  private guardUntilClosed(socket: Duplex | null, caller: KubeCaller): () => void {
    if (!socket) return () => undefined;
    return this.deps.guard(caller, () => socket.destroy());
  }

  /** The verified client certificate's user and cluster, or a 401 Status saying why not. */
  private certified(
    req: IncomingMessage,
    refuse: (status: KubeStatus) => void,
  ): CertifiedKubeUser | undefined {
    const cert = verifiedPeer(req);
    if (!cert) refuse(kubeStatus(401, unverifiedPeerReason(req.socket as TLSSocket)));
    return cert;
  }

  private certCaller(cert: CertifiedKubeUser): KubeCaller {
    return { user: cert.user, cluster: cert.cluster, identify: () => this.deps.identify(cert) };
  }
}

/**
 * The user and cluster of the client certificate, when TLS verified it against the Kubernetes
 * CA. The listener asks for a certificate without insisting, so that a request without one gets a
 * Status kubectl can print: a certificate TLS did not verify counts for nothing.
 */
function verifiedPeer(req: IncomingMessage): CertifiedKubeUser | undefined {
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return undefined;
  return certifiedKubeUser(socket.getPeerCertificate());
}

/**
 * Why a request's certificate counts for nothing, as kubectl prints it: none sent, one that
 * expired (a kubeconfig written by `postern kube login` long ago, used without its plugin), or
 * one from elsewhere. TLS gives the reason by its OpenSSL code.
 */
function unverifiedPeerReason(socket: TLSSocket): string {
  if (!socket.getPeerCertificate?.()?.raw) {
    return 'a client certificate from postern kube login is required';
  }
  const error: unknown = socket.authorizationError;
  const code = typeof error === 'string' ? error : (error as { code?: string } | null)?.code;
  if (code === 'CERT_HAS_EXPIRED') {
    return 'the client certificate has expired: run postern kube login again';
  }
  return "the client certificate is not from this cluster's Kubernetes CA: run postern kube login";
}

/** What a client must never pass on to the cluster: its credentials and asked-for identities. */
export const isCredentialHeader = (name: string) =>
  name === 'authorization' || name === 'cookie' || isImpersonationHeader(name);

/** The headers that make the cluster act as the chosen user and groups. */
export function impersonated(impersonation: Impersonation): OutgoingHttpHeaders {
  return {
    'impersonate-user': impersonation.user,
    ...(impersonation.groups.length > 0 ? { 'impersonate-group': impersonation.groups } : {}),
  };
}
