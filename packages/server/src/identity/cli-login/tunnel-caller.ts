import type { FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { lockMessage } from '../../access-control/locks/lock-watcher.js';
import { accessDenied, notAuthenticated } from '../../errors.js';
import { readCookie } from '../../http/read-cookie.js';
import {
  bearerToken,
  identifyByCredentials,
  sessionCookieName,
  webSessionMarks,
  type GuardDeps,
} from '../../http/request-identity.js';
import { signedRequestHeaders } from '../../ssh/signed-request.js';
import {
  rootMfaHeader,
  rootSessionMfaRefusal,
  SessionMfa,
  sessionMfaRefusal,
  webSessionMfaSubject,
} from '../mfa/session-mfa.js';
import type { CertRequestAuth } from './cert-request-auth.js';

/** Who opens a tunnel (`postern proxy db|app`, `postern db connect`), as its routes judge them. */
export interface TunnelCaller {
  user: string;
  roles: string[];
  traits: Record<string, string[]>;
  roleSet: RoleSet;
  /** The access requests the credential assumed. */
  accessRequests: string[];
  /**
   * What a live tunnel's rechecks resolve the user's access from: a web session's roles (a root
   * user on a leaf has no record there), none for a certificate (the user's record decides).
   */
  sessionRoles: readonly string[];
  /** When the credential stops counting (ms). */
  expiresMs: number;
  /** The MFA device the credential was signed in with: an `mfa_device` lock ends the tunnel. */
  mfaDevice?: string;
  /** The device that answered the per-session check of its certificate: the same. */
  sessionMfaDevice?: string;
  /** A bot's certificate's instance: a `bot_instance` lock ends the tunnel. */
  botInstance?: string;
  /**
   * Why the per-session MFA rule refuses this tunnel to `target` (`db:<name>`, `app:<name>`), or
   * undefined; `what` names the client in the message, `fix` what to do instead (a default
   * that suits the tunnels). Throws for a check that did not pass.
   */
  mfaRefusal(target: string, what: string, fix?: string): Promise<string | undefined>;
}

/**
 * A tunnel's caller: the CLI signs its upgrade with the certificate of `postern login`; a root
 * cluster forwarding its user's tunnel to this leaf (`--cluster`) sends the leaf session this
 * leaf granted that user, as cookie and bearer. A browser cannot set the bearer on a WebSocket,
 * so a page on another origin cannot open a tunnel with the cookie alone.
 */
export class TunnelCallers {
  constructor(
    private readonly deps: {
      certAuth: Pick<CertRequestAuth, 'identify'>;
      guard: Pick<GuardDeps, 'sessions' | 'access' | 'locks'>;
      sessionMfa: Pick<SessionMfa, 'verify'>;
    },
  ) {}

  async identify(request: FastifyRequest): Promise<TunnelCaller> {
    const signed = request.headers[signedRequestHeaders.signature] !== undefined;
    if (signed || !bearerToken(request.headers.authorization)) {
      return this.bySignature(request);
    }
    return this.bySession(request.raw);
  }

  /**
   * A web session's caller, by its cookie and bearer: how a trusted root's requests for its user
   * arrive (kubectl's too, leaf-kube-server.ts). 401 or 403 (a lock) as ApiErrors.
   */
  async bySession(req: IncomingMessage): Promise<TunnelCaller> {
    const { guard } = this.deps;
    const bearer = bearerToken(req.headers.authorization);
    const identity = await identifyByCredentials(guard, readCookie(req, sessionCookieName), bearer);
    if (!identity) throw notAuthenticated('your session has ended: sign in again');
    const { session } = identity;
    const { mfaDevice } = session;
    const subject = { user: identity.user, roles: identity.roles, ...webSessionMarks(identity) };
    const lock = guard.locks.lockFor(subject);
    if (lock) throw accessDenied(`locked: ${lockMessage(lock)}`);
    return {
      ...(mfaDevice ? { mfaDevice } : {}),
      user: identity.user,
      roles: identity.roles,
      traits: identity.traits,
      roleSet: identity.roleSet,
      accessRequests: session.accessRequests ?? [],
      sessionRoles: session.roles,
      expiresMs: Date.parse(session.expires),
      // A tunnel cannot ask a web session's user for a check. A trusted root that ran it (the
      // CLI's per-session certificate for this tunnel) sends its signed word for the subject.
      mfaRefusal: async (
        target,
        what,
        fix = 'postern on the root asks for it (with --cluster)',
      ) => {
        if (!SessionMfa.requiredFor(identity)) return undefined;
        const word = req.headers[rootMfaHeader];
        if (typeof word === 'string') {
          const subject = webSessionMfaSubject(session.id, target);
          const answer = { root_assertion: word };
          await this.deps.sessionMfa.verify(identity.user, subject, answer, undefined);
          return undefined;
        }
        const root = session.rootSessionMfa;
        if (root) return rootSessionMfaRefusal(root, fix);
        return sessionMfaRefusal({ roleSet: identity.roleSet }, what, fix);
      },
    };
  }

  private async bySignature(request: FastifyRequest): Promise<TunnelCaller> {
    const signer = await this.deps.certAuth.identify(request);
    return {
      user: signer.user,
      roles: signer.roles,
      traits: signer.traits,
      roleSet: signer.roleSet,
      accessRequests: signer.accessRequests,
      sessionRoles: [],
      expiresMs: signer.expiresMs,
      ...(signer.mfaDevice ? { mfaDevice: signer.mfaDevice } : {}),
      ...(signer.sessionMfaDevice ? { sessionMfaDevice: signer.sessionMfaDevice } : {}),
      ...(signer.botInstance ? { botInstance: signer.botInstance } : {}),
      // A per-session MFA certificate for this target opens it (the CLI asks for one).
      mfaRefusal: (target, what, fix) =>
        Promise.resolve(
          sessionMfaRefusal(
            { ...signer, mfaVerified: signer.sessionMfaTargets?.includes(target) === true },
            what,
            fix,
          ),
        ),
    };
  }
}
