import type { ConnectorKind } from '@postern/contracts';
import type { AuditStore } from '../modules/audit/index.js';
import { emitAudit, remoteAddr } from '../modules/audit/emit.js';
import type { RequestContext } from '../identity/auth/session-cookie.js';
import { lockMessage, type LockView } from '../access-control/locks/lock-watcher.js';
import { LoginRuleError } from '../access-control/login-rules/login-rule.js';
import type { LoginRulesService } from '../access-control/login-rules/login-rules.service.js';
import { LocalUserExistsError, type UsersStore } from '../identity/users/users.store.js';
import type {
  WebSession,
  WebSessionService,
} from '../identity/web-sessions/web-sessions.service.js';

/** Who a provider says signed in, after the connector's mapping. */
export interface SsoIdentity {
  kind: ConnectorKind;
  connector: string;
  username: string;
  roles: string[];
  traits: { logins: string[]; [trait: string]: string[] };
}

/**
 * Where a failed sign-in lands (spec §2): `login` before the provider, `callback` when its answer
 * is refused, `unauthorized` when the person is known but may not in (no role, locked).
 */
export type SsoErrorStage = 'login' | 'callback' | 'unauthorized';

/**
 * A sign-in refused for a reason the person may read. Anything else that goes wrong is reported
 * to them without detail, so no internals (endpoints, provider errors, stack) leak.
 */
export class SsoLoginError extends Error {
  constructor(
    message: string,
    readonly stage: SsoErrorStage = 'callback',
  ) {
    super(message);
    this.name = 'SsoLoginError';
  }
}

/** A user name as a key segment and a login: letters, digits and `@._+-` (emails fit). */
const validUsername = /^[A-Za-z0-9@._+-]{1,255}$/;

export interface SsoLoginDeps {
  users: UsersStore;
  sessions: WebSessionService;
  audit: AuditStore;
  locks: LockView;
  loginRules: Pick<LoginRulesService, 'apply'>;
}

/**
 * The end every SSO flow shares: refuse what must be refused, write the SSO user (roles and
 * traits from this sign-in, expiring with the session), start the web session, and audit.
 */
export class SsoLoginService {
  constructor(private readonly deps: SsoLoginDeps) {}

  async signIn(mapped: SsoIdentity, ctx: RequestContext): Promise<WebSession> {
    const identity = await this.withLoginRules(mapped);
    this.check(identity);
    const session = await this.deps.sessions.create(identity.username, identity.roles);
    try {
      await this.putUser(identity, new Date(session.expires));
    } catch (error) {
      await this.deps.sessions.end(session.id);
      throw error;
    }
    await this.succeeded(identity, ctx);
    return session;
  }

  /**
   * The same checks, SSO user and audit, without a web session: for the CLI's sign-in, which
   * gets a certificate instead (console-login.service.ts). The user lasts at least `until`.
   */
  async admit(mapped: SsoIdentity, ctx: RequestContext, until: Date): Promise<void> {
    const identity = await this.withLoginRules(mapped);
    this.check(identity);
    await this.putUser(identity, until);
    await this.succeeded(identity, ctx);
  }

  /**
   * The connector's traits rewritten by the login rules in force. A rule that cannot apply to this
   * person refuses the sign-in, naming the rule: traits half-rewritten could give logins nobody
   * meant to give.
   */
  private async withLoginRules(identity: SsoIdentity): Promise<SsoIdentity> {
    try {
      const traits = await this.deps.loginRules.apply(identity.traits);
      const copied = Object.fromEntries(
        Object.entries(traits).map(([name, values]) => [name, [...(values ?? [])]]),
      );
      return { ...identity, traits: { ...copied, logins: copied.logins ?? [] } };
    } catch (error) {
      if (error instanceof LoginRuleError) {
        throw new SsoLoginError(`${error.message}: ask an administrator to fix it`, 'unauthorized');
      }
      throw error;
    }
  }

  private check({ username, roles, kind, connector }: SsoIdentity): void {
    if (!validUsername.test(username)) {
      throw new SsoLoginError(
        `the provider's user name is not usable here: ${JSON.stringify(username.slice(0, 64))}`,
      );
    }
    if (roles.length === 0) {
      throw new SsoLoginError(
        `user ${username} is not mapped to any role by the ${kind} connector ${connector}: ask an administrator to map your groups to roles`,
        'unauthorized',
      );
    }
    const lock = this.deps.locks.lockFor({ user: username, roles });
    if (lock) {
      throw new SsoLoginError(`your account is locked: ${lockMessage(lock)}`, 'unauthorized');
    }
  }

  private async putUser(identity: SsoIdentity, until: Date): Promise<void> {
    const { username, roles, kind, connector } = identity;
    try {
      await this.deps.users.putSsoUser(
        {
          kind: 'user',
          version: 'v2',
          metadata: { name: username },
          spec: {
            roles,
            traits: identity.traits,
            authType: 'sso',
            connector: { kind, name: connector },
            expires: until.toISOString(),
            createdAt: new Date().toISOString(),
          },
          status: {},
        },
        until,
      );
    } catch (error) {
      if (error instanceof LocalUserExistsError) {
        throw new SsoLoginError(
          `a local user named ${username} exists, so ${username} cannot sign in through ${connector}`,
          'unauthorized',
        );
      }
      throw error;
    }
  }

  private async succeeded(identity: SsoIdentity, ctx: RequestContext): Promise<void> {
    await emitAudit(this.deps.audit, 'T1001I', {
      user: identity.username,
      method: identity.kind,
      connector: identity.connector,
      roles: identity.roles,
      success: true,
      ...remoteAddr(ctx.addr),
    });
  }

  /** Records a failed SSO sign-in; `reason` is what the person was told. */
  async failed(
    kind: ConnectorKind,
    connector: string | undefined,
    reason: string,
    ctx: RequestContext,
  ): Promise<void> {
    await emitAudit(this.deps.audit, 'T1001W', {
      method: kind,
      ...(connector ? { connector } : {}),
      success: false,
      error: reason,
      ...remoteAddr(ctx.addr),
    });
  }
}
