import type { MfaChallenge, MfaDevice, WebauthnAssertion } from '@postern/contracts';
import type { AuthSettings } from '../../config/auth-config.js';
import { accessDenied, badParameter } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import type { LoginService } from '../auth/login.service.js';
import type { RequestContext } from '../auth/session-cookie.js';
import { deviceView } from '../mfa/devices.js';
import {
  SecondFactorRejected,
  type SecondFactorProof,
  type SecondFactorService,
} from '../mfa/second-factor.service.js';
import type { ChallengePurpose } from '../mfa/challenges.store.js';
import { lockedError, type LockoutService } from '../users/lockout.service.js';
import { checkNewPassword, decodePassword, type PasswordHasher } from '../users/passwords.js';
import type { CredentialChanges } from '../users/credential-changes.js';
import type { UsersStore } from '../users/users.store.js';
import type { UserTokensService } from '../user-tokens/user-tokens.service.js';

export interface AccountDeps {
  users: UsersStore;
  passwords: PasswordHasher;
  login: LoginService;
  lockout: LockoutService;
  secondFactor: SecondFactorService;
  tokens: UserTokensService;
  audit: AuditStore;
  settings: AuthSettings;
  credentialChanges: CredentialChanges;
}

/** A signed-in user's own account: password, re-authentication and privilege tokens. */
export class AccountService {
  constructor(private readonly deps: AccountDeps) {}

  /** `PUT users/password`: the old password and a second factor prove it is really them. */
  async changePassword(
    user: string,
    body: {
      old_password: string;
      new_password: string;
      second_factor_token?: string | undefined;
      webauthnAssertionResponse?: WebauthnAssertion | undefined;
    },
    ctx: RequestContext,
    /** The caller's web session: it stays signed in, every other credential is revoked. */
    keptLineage?: string,
  ): Promise<void> {
    const oldPassword = decodePassword(body.old_password, 'old_password');
    const newPassword = decodePassword(body.new_password, 'new_password');
    checkNewPassword(newPassword);
    const { credentials } = await this.deps.login.checkPassword(user, oldPassword, ctx, 'password');
    if (this.deps.secondFactor.required(credentials)) {
      const proof = {
        totpCode: body.second_factor_token,
        assertion: body.webauthnAssertionResponse,
      };
      await this.proveSecondFactor(user, proof, 'password-change', ctx);
    }
    const passwordHash = await this.deps.passwords.hash(newPassword);
    await this.deps.users.mutateCredentials(user, (current) => ({
      credentials: { ...current, passwordHash },
      result: undefined,
    }));
    await this.deps.credentialChanges.revokeEarlier(user, keptLineage);
    await emitAudit(this.deps.audit, 'T1005I', { user, ...remoteAddr(ctx.addr) });
  }

  /** `POST mfa/authenticatechallenge/password`: the challenge a password change answers. */
  async passwordChallenge(user: string, pass: string, ctx: RequestContext): Promise<MfaChallenge> {
    const password = decodePassword(pass, 'pass');
    const { credentials } = await this.deps.login.checkPassword(user, password, ctx, 'password');
    return this.deps.secondFactor.challengeFor(user, credentials, 'password-change');
  }

  /** `POST mfa/authenticatechallenge`: the challenge a privilege token answers. */
  async privilegeChallenge(user: string): Promise<MfaChallenge> {
    const credentials = await this.deps.users.credentials(user);
    return this.deps.secondFactor.challengeFor(user, credentials, 'privilege');
  }

  /**
   * `POST users/privilege/token`: a fresh second factor buys a five-minute token for changing
   * devices. With no device yet, none can be asked for, so an empty request is enough.
   */
  async privilegeToken(
    user: string,
    body: {
      secondFactorToken?: string | undefined;
      webauthnAssertionResponse?: WebauthnAssertion | undefined;
    },
    ctx: RequestContext,
  ): Promise<string> {
    const proof = { totpCode: body.secondFactorToken, assertion: body.webauthnAssertionResponse };
    const { devices } = await this.deps.users.credentials(user);
    if (proof.totpCode || proof.assertion || devices.length > 0) {
      await this.proveSecondFactor(user, proof, 'privilege', ctx);
    }
    return this.deps.tokens.createPrivilege(user, ctx.addr);
  }

  async listDevices(user: string): Promise<MfaDevice[]> {
    const { devices } = await this.deps.users.credentials(user);
    return devices.map(deviceView);
  }

  /** A wrong second factor here counts toward the lockout, like a failed sign-in. */
  private async proveSecondFactor(
    user: string,
    proof: SecondFactorProof,
    purpose: ChallengePurpose,
    ctx: RequestContext,
  ): Promise<void> {
    try {
      await this.deps.secondFactor.verify(user, proof, [purpose], ctx.origin);
    } catch (error) {
      if (!(error instanceof SecondFactorRejected)) throw error;
      if (!proof.totpCode && !proof.assertion) throw badParameter(error.message);
      const lockedUntil = await this.deps.lockout.recordFailure(user, ctx.addr);
      if (lockedUntil) throw lockedError(lockedUntil);
      throw accessDenied(error.message);
    }
  }
}
