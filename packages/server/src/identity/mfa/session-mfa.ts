import { createHash } from 'node:crypto';
import type { MfaChallenge, SessionMfaResponse } from '@postern/contracts';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { accessDenied } from '../../errors.js';
import { emitAuditInBackground } from '../../modules/audit/emit.js';
import type { AuditStore } from '../../modules/audit/index.js';
import type { UsersStore } from '../users/users.store.js';
import {
  MfaDeviceLocked,
  SecondFactorRejected,
  type SecondFactorService,
} from './second-factor.service.js';

export interface SessionMfaDeps {
  users: Pick<UsersStore, 'credentials'>;
  secondFactor: Pick<SecondFactorService, 'challengeFor' | 'verifyAssertion' | 'verifyTotp'>;
  audit: AuditStore;
}

/**
 * Why a session the roles want checked cannot start on a path that cannot ask for the check
 * (plain ssh, kubectl, a database client, an app, a desktop), or undefined when it may: the
 * roles do not ask, or the caller passed the check for this session (`mfaVerified`).
 */
export function sessionMfaRefusal(
  who: { roleSet: Pick<RoleSet, 'options'>; mfaVerified?: boolean },
  what: string,
  /** What to do instead, when there is one for this path. */
  fix = 'the web console, postern ssh, scp, db connect and proxy ask for it',
): string | undefined {
  if (who.mfaVerified || !SessionMfa.required(who.roleSet)) return undefined;
  return `access denied: your roles require an MFA check for each session (require_session_mfa), which ${what} cannot ask for yet; ${fix}`;
}

/**
 * The same for a root user on a trusted leaf whose roles on the root ask for the check: the
 * leaf asks for it too, whatever its own roles say (docs/trusted-clusters.md).
 */
export function rootSessionMfaRefusal(root: string, fix: string): string {
  return `access denied: your roles on ${root} require an MFA check for each session (require_session_mfa), which this client cannot ask for yet; ${fix}`;
}

/**
 * What a `mfa_required` answer says on the console's paths that ask for the check themselves
 * first (an application launch, a desktop, file transfers): `what` is "this application", ….
 */
export function sessionMfaNeeded(what: string): string {
  return `your roles require an MFA check for each session (require_session_mfa): pass one for ${what} first`;
}

/**
 * The subject of a check the console asks for on its own calls (an application launch): bound to
 * the web session (by a digest: its id is a credential) and to what it opens (`app:<fqdn>`).
 */
export function webSessionMfaSubject(webSessionId: string, resource: string): string {
  const session = createHash('sha256').update(webSessionId).digest('base64url').slice(0, 22);
  return `web ${session} ${resource}`;
}

/**
 * A trusted root's users on this (leaf) cluster have no device here: their check is the root's.
 * `challenge` is undefined for any other user; `verify` is false for an answer it did not ask
 * for, and throws for a wrong one.
 */
export interface RootUserChecks {
  challenge(user: string, subject: string): Promise<MfaChallenge | undefined>;
  verify(user: string, subject: string, response: SessionMfaResponse): Promise<boolean>;
}

/**
 * The header a trusted root adds to a console call it forwards to a leaf when it ran that call's
 * per-session MFA check itself: its signed word for the leaf's subject (leaf-forwarder.ts).
 */
export const rootMfaHeader = 'x-postern-root-mfa';

/** How long a session waits for its user to answer the MFA challenge. */
export const sessionMfaTimeoutMs = 60_000;

/**
 * Per-session MFA (role option `require_session_mfa`, docs/rbac.md): a session of a user whose
 * roles ask for it starts only after a fresh second factor, asked for that session. A key's
 * challenge is bound to a subject (a terminal socket's id and request, or a web session and
 * `app:<fqdn>`), so its answer opens nothing else; a code is single use.
 */
export class SessionMfa {
  private rootUsers: RootUserChecks | undefined;

  constructor(private readonly deps: SessionMfaDeps) {}

  /** The trusted-clusters part: checks for a root's users, which the root runs (leaf-checks.ts). */
  delegateRootUsers(checks: RootUserChecks): void {
    this.rootUsers = checks;
  }

  /** Whether the roles ask for a check before each session (any role asking is enough). */
  static required(roleSet: Pick<RoleSet, 'options'>): boolean {
    return roleSet.options().requireSessionMfa;
  }

  /**
   * The same for a web session's caller: on a trusted leaf, the rule of a root's user's roles
   * there counts too (docs/trusted-clusters.md).
   */
  static requiredFor(identity: {
    roleSet: Pick<RoleSet, 'options'>;
    session: { rootSessionMfa?: string };
  }): boolean {
    return identity.session.rootSessionMfa !== undefined || SessionMfa.required(identity.roleSet);
  }

  /** The challenge for this user and subject; refused when they have no device to answer it. */
  async challenge(user: string, subject: string): Promise<MfaChallenge> {
    const delegated = await this.rootUsers?.challenge(user, subject);
    if (delegated) return delegated;
    const credentials = await this.deps.users.credentials(user);
    const challenge = await this.deps.secondFactor.challengeFor(
      user,
      credentials,
      'session',
      subject,
    );
    if (!challenge.webauthn_challenge && !challenge.totp_challenge) {
      throw accessDenied(
        'your roles require an MFA check for each session (require_session_mfa), and you have no MFA device this cluster accepts: add one in Account Settings',
      );
    }
    return challenge;
  }

  /**
   * Checks the answer to `challenge`'s; a wrong one is audited as a failed auth attempt. Resolves
   * with the id of the device that answered (undefined when a trusted root vouched for its user),
   * which a session opened on the strength of the check carries for `mfa_device` locks.
   */
  async verify(
    user: string,
    subject: string,
    response: SessionMfaResponse,
    origin: string | undefined,
  ): Promise<string | undefined> {
    if (await this.rootUsers?.verify(user, subject, response)) return undefined;
    try {
      if ('root_assertion' in response) {
        throw new SecondFactorRejected('a root assertion answers only a root check');
      } else if ('webauthn_response' in response) {
        const expected = { user, purposes: ['session' as const], subject };
        const { device } = await this.deps.secondFactor.verifyAssertion(
          response.webauthn_response,
          expected,
          origin,
        );
        return device.id;
      } else {
        return (await this.deps.secondFactor.verifyTotp(user, response.totp_code)).id;
      }
    } catch (error) {
      if (!(error instanceof SecondFactorRejected || error instanceof MfaDeviceLocked)) throw error;
      const reason = `the MFA check for this session failed: ${error.message}`;
      emitAuditInBackground(this.deps.audit, 'T3007W', { user, error: reason, subject });
      throw accessDenied(reason);
    }
  }
}
