import {
  apiPaths,
  sessionMfaCertsRequestSchema,
  type MfaRequiredRequest,
  type SessionMfaCertsResponse,
  type SessionMfaTarget,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../../errors.js';
import { leafProxyHost } from '../../../modules/trusted-clusters/cluster-ssh.js';
import { certCaller, type LeafCaller } from '../../../modules/trusted-clusters/leaf-grants.js';
import { parseInput } from '../../../http/parse-input.js';
import type { CertIssuer } from '../../../identity/cli-login/cert-issuer.js';
import type { CertRequestAuth } from '../../../identity/cli-login/cert-request-auth.js';
import { SessionMfa } from '../../../identity/mfa/session-mfa.js';
import { resolveNodeName, type NodeDirectory } from '../terminal/node-access.js';

interface SessionMfaCertOptions {
  certAuth: Pick<CertRequestAuth, 'identify'>;
  nodes: NodeDirectory;
  clusterName: string;
  /** The roles on the user's record, which a certificate is issued from. */
  recordRoles: (user: string) => string[] | undefined;
  sessionMfa: Pick<SessionMfa, 'verify'>;
  issuer: Pick<CertIssuer, 'issue'>;
  /** The trusted leaf a name such as `web-1.lab` is under, if any (ssh through this root). */
  leafOf: (host: string) => string | undefined;
  /** Whether the leaf's roles for this user ask for the check (leaf-mfa.ts). */
  leafSessionMfaRequired: (
    leaf: string,
    caller: LeafCaller,
    resource: MfaRequiredRequest,
  ) => Promise<boolean>;
}

/**
 * `POST mfa/session/certs` (docs/cli-login.md, "Per-session MFA"): how `postern ssh`, `scp`,
 * `db connect` and the `proxy` tunnels open a session whose roles ask for a fresh second factor
 * (require_session_mfa). Signed with the login's certificate. Without a code it answers whether
 * one is needed; with an authenticator code for the user it returns a certificate for the same
 * roles that opens only the sessions named (`login@<node id>`, `db:<name>`, `app:<name>`, or
 * `login@web-1.lab`, `db:<name>@lab`, `app:<name>@lab` on a trusted leaf, whose roles the leaf
 * is asked about; the root vouches for the check to the leaf: leaf-tunnel-relay.ts), for a
 * minute, and carries when the login behind it ends. Database and app names are not looked up
 * here: the tunnel that honours the certificate checks access as for any other.
 */
export async function sessionMfaCertRoutes(
  server: FastifyInstance,
  options: SessionMfaCertOptions,
) {
  server.post(
    apiPaths.sessionMfaCerts,
    // The certificate is the credential: the guard lets it through and identify() checks it.
    { config: { access: 'public' } },
    async (request): Promise<SessionMfaCertsResponse> => {
      const identity = await options.certAuth.identify(request);
      const body = parseInput(sessionMfaCertsRequestSchema, request.body);
      // A leaf's server (`web-1.lab`), session (`join` with `cluster`), database or app (with
      // `cluster`) is judged by the leaf's roles for this user too. A server is named in the
      // certificate as asked: the leaf checks it against the name the client reaches.
      const leafOf = (target: SessionMfaTarget): string | undefined => {
        if ('node' in target) {
          const { node } = target;
          const local = resolveNodeName(options.nodes, node, options.clusterName, identity.roleSet);
          return local ? undefined : options.leafOf(node);
        }
        if (!target.cluster || target.cluster === options.clusterName) return undefined;
        const leaf = options.leafOf(leafProxyHost(target.cluster));
        if (!leaf) throw notFound(`${target.cluster} is not a cluster this proxy trusts`);
        return leaf;
      };
      const caller = certCaller(identity);
      let required = SessionMfa.required(identity.roleSet);
      for (const target of body.targets) {
        if (required) break;
        const leaf = leafOf(target);
        if (!leaf) continue;
        required = await options.leafSessionMfaRequired(
          leaf,
          caller,
          leafQuestion(target, leaf, caller.user),
        );
      }
      if (!required) return { required: false };
      const targetOf = (target: SessionMfaTarget) => {
        if ('kind' in target) {
          const leaf = target.kind === 'join' ? undefined : leafOf(target);
          return `${target.kind}:${target.name}${leaf ? `@${leaf}` : ''}`;
        }
        const { node, login } = target;
        if (leafOf(target)) return `${login}@${node.toLowerCase()}`;
        const found = resolveNodeName(options.nodes, node, options.clusterName, identity.roleSet);
        if (!found) throw notFound(`server "${node}" is not found`);
        return `${login}@${found.id}`;
      };
      const targets = body.targets.map(targetOf);
      if (!body.totp_code) return { required: true };
      const { user } = identity;
      const checkedWith = await options.sessionMfa.verify(
        user,
        `ssh ${targets.join(',')}`,
        { totp_code: body.totp_code },
        undefined,
      );
      const { accessRequests, expiresMs } = identity;
      const issued = await options.issuer.issue({
        user,
        roles: options.recordRoles(user) ?? identity.roles,
        publicKey: body.pub_key,
        requestedTtlMs: undefined,
        addr: request.ip,
        ...(accessRequests.length ? { assumed: { ids: accessRequests, endsAt: expiresMs } } : {}),
        session: { targets, loginEndsAt: expiresMs, device: checkedWith },
        mfaDevice: identity.mfaDevice,
      });
      return { required: true, cert: issued.cert };
    },
  );
}

/**
 * What the leaf's `mfa/required` is asked about a target: a server and login; for a join, the
 * leaf's proxy itself; a database or an app by name.
 */
function leafQuestion(target: SessionMfaTarget, leaf: string, user: string): MfaRequiredRequest {
  if ('node' in target)
    return { node: { node_name: target.node, login: target.login.slice(0, 64) } };
  if (target.kind === 'db') return { database: { service_name: target.name } };
  if (target.kind === 'app') return { app: { name: target.name } };
  return { node: { node_name: leafProxyHost(leaf), login: user.slice(0, 64) } };
}
