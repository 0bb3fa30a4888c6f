import {
  agentPaths,
  apiPaths,
  errorCatalogue,
  kubeClusterListResponseSchema,
} from '@postern/contracts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../../errors.js';
import { rootMfaHeader, SessionMfa, webSessionMfaSubject } from '../../identity/mfa/session-mfa.js';
import type {
  ClusterKube,
  KubeRootSide,
  LeafPassage,
} from '../../modules/trusted-clusters/cluster-kube.js';
import { cliCallerKey, type LeafCaller } from '../../modules/trusted-clusters/leaf-grants.js';
import { leafGetJson } from '../../modules/trusted-clusters/leaf-reach.js';
import { isCredentialHeader, type KubeCaller, type KubeIdentity } from './kube-api-proxy.js';
import type { CertifiedKubeUser } from './kube-ca.js';
import { splitKubeUrl } from './kube-path.js';
import type { KubeRequestAudit } from './kube-request-audit.js';
import { kubeCheck } from './leaf-kube-server.js';
import { forwardRequest, forwardUpgrade, passedHeaders, rawResponse } from './upstream/forward.js';
import { tunnelEndpoint, type KubeEndpoint } from './upstream/kube-endpoint.js';
import { kubeStatus, writeStatus, type KubeStatus } from './upstream/kube-status.js';

/**
 * kubectl to a trusted leaf's Kubernetes cluster through the root, the root's half
 * (docs/trusted-clusters.md, "kubectl to a leaf's clusters"). A certificate for `prod.lab` is
 * checked as any (its user, locks, the root's own rules); then every request, upgrades included,
 * goes to the leaf through its tunnel with the leaf session the leaf grants the user. The root
 * reads nothing of it and audits each request; the leaf serves it (leaf-kube-server.ts).
 */

/** The longest a root certificate for a leaf's cluster lasts (`postern kube login`'s). */
const maxCertMs = 12 * 3_600_000;

export interface LeafKubeRootDeps {
  clusterKube: ClusterKube;
  /** The root's judgement of the certificate's user: exists, not locked, its own rules. */
  identify(cert: CertifiedKubeUser): KubeIdentity;
  /** Their traits here, which the leaf's role templates may use. */
  traits(cert: CertifiedKubeUser): Record<string, string[]>;
  audit: KubeRequestAudit;
  guard(caller: KubeCaller, revoke: (why: string) => void): () => void;
}

/** The root's half, for KubeApiProxy's `leaf`: the certificate names `<cluster>.<leaf>`. */
export function leafKubeRelay(deps: LeafKubeRootDeps) {
  /** The user, passage and endpoint for one request, or the Status refusing it. */
  const open = async (
    req: IncomingMessage,
    cert: CertifiedKubeUser,
  ): Promise<
    { endpoint: KubeEndpoint; path: string; done: (status: number) => void } | KubeStatus
  > => {
    const target = deps.clusterKube.split(cert.cluster);
    const root = deps.clusterKube.rootSide;
    const { cluster: named, path } = splitKubeUrl(req.url ?? '/');
    const audited = (status: number) =>
      deps.audit.record({
        user: cert.user,
        cluster: cert.cluster,
        method: req.method ?? 'GET',
        path: path.split('?')[0]!,
        // The leaf reads the request (and audits it with the resource): the root does not.
        request: undefined,
        status,
        remoteAddr: req.socket.remoteAddress,
      });
    const refuse = (code: number, message: string) => {
      audited(code);
      return kubeStatus(code, message);
    };
    if (!target || !root) return refuse(404, `${cert.cluster} is not a cluster this proxy reaches`);
    if (named !== cert.cluster) {
      return refuse(
        403,
        `this certificate is for Kubernetes cluster ${cert.cluster}, not ${named}: run postern kube login ${named}`,
      );
    }
    const identity = deps.identify(cert);
    if ('refused' in identity) return refuse(identity.code, identity.refused);
    const caller: LeafCaller = {
      key: cliCallerKey(cert.user),
      user: cert.user,
      roles: identity.roles,
      traits: deps.traits(cert),
      expires: new Date(cert.issuedAt.getTime() + maxCertMs).toISOString(),
      sessionMfa: SessionMfa.required(identity.roleSet),
    };
    let passage: LeafPassage;
    let word: string | undefined;
    try {
      passage = await root.passage(target.leaf, caller);
      // A certificate the credential plugin got with a code: the check ran here, with the
      // user's devices; the leaf gets this root's word for its subject.
      const subject = webSessionMfaSubject(passage.session, kubeCheck(target.cluster));
      if (cert.sessionMfaVerified) word = await root.word(target.leaf, cert.user, subject);
    } catch (error) {
      // The leaf's refusal of the user (no role maps) as it said it; anything else: unreachable.
      if (error instanceof ApiError) return refuse(errorCatalogue[error.code], error.message);
      return refuse(502, `${target.leaf} cannot be reached`);
    }
    return {
      endpoint: leafEndpoint(passage, target.cluster, word),
      path,
      done: (status) => {
        audited(status);
        // The leaf restarted or ended the session: the next request asks for a new one.
        if (status === 401) passage.drop();
      },
    };
  };
  const kubeCaller = (cert: CertifiedKubeUser): KubeCaller => ({
    user: cert.user,
    cluster: cert.cluster,
    identify: () => deps.identify(cert),
  });
  // Only this root speaks for its checks: a client's own "word" never reaches the leaf.
  const headersOf = (req: IncomingMessage) =>
    passedHeaders(req.headers, (name) => isCredentialHeader(name) || name === rootMfaHeader);

  return {
    claims: (cluster: string) => deps.clusterKube.split(cluster) !== undefined,
    request(req: IncomingMessage, res: ServerResponse, cert: CertifiedKubeUser): void {
      void open(req, cert).then((opened) => {
        if ('kind' in opened) return writeStatus(res, opened);
        res.on(
          'close',
          deps.guard(kubeCaller(cert), () => res.destroy()),
        );
        forwardRequest(req, res, opened.endpoint, opened.path, headersOf(req), opened.done);
      });
    },
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, cert: CertifiedKubeUser): void {
      void open(req, cert).then((opened) => {
        if ('kind' in opened) return void socket.end(rawResponse(opened.code, opened));
        socket.once(
          'close',
          deps.guard(kubeCaller(cert), () => socket.destroy()),
        );
        const { endpoint, path, done } = opened;
        forwardUpgrade(req, socket, head, endpoint, path, headersOf(req), done);
      });
    },
  };
}

/** The leaf's `leafKube` route for one cluster, through its tunnel, with the leaf session. */
function leafEndpoint(passage: LeafPassage, cluster: string, word?: string): KubeEndpoint {
  const tunnel = tunnelEndpoint(passage.dial);
  const prefix = `${agentPaths.leafKube}/${encodeURIComponent(cluster)}`;
  const credential = { ...passage.headers, ...(word ? { [rootMfaHeader]: word } : {}) };
  return {
    request: (method, path, headers) =>
      tunnel.request(method, prefix + path, { ...headers, ...credential }),
    dialTarget: (path) => {
      const target = tunnel.dialTarget(prefix + path);
      return { ...target, headers: { ...target.headers, ...credential } };
    },
    close: () => undefined,
  };
}

/**
 * For `postern kube login prod --cluster lab` on the root: whether the leaf has the cluster for
 * this user (its own listing, read with the user's leaf session), and whether its roles ask for
 * per-session MFA there. The leaf's refusal of the user (no role maps) is thrown as it says it.
 */
export async function leafKubeLogin(
  root: KubeRootSide,
  target: { leaf: string; cluster: string },
  caller: LeafCaller,
): Promise<{ found: boolean; sessionMfaRequired: boolean }> {
  const resource = { kube: { cluster_name: target.cluster } };
  const sessionMfaRequired = await root.sessionMfaRequired(target.leaf, caller, resource);
  const passage = await root.passage(target.leaf, caller);
  const query = new URLSearchParams({ search: target.cluster, limit: '100' });
  const listing = await leafGetJson(passage, `${apiPaths.kubernetes(target.leaf)}?${query}`);
  const parsed = kubeClusterListResponseSchema.safeParse(listing);
  if (!parsed.success) throw new ApiError('connection_problem', `${target.leaf} answered nonsense`);
  const found = parsed.data.items.some((cluster) => cluster.name === target.cluster);
  return { found, sessionMfaRequired };
}
