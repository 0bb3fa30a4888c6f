import type { WebauthnCreation } from '@postern/contracts';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '../../clock.js';
import { totpAllowed, webauthnAllowed, type AuthSettings } from '../../config/auth-config.js';
import { badParameter } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import type { LoginService } from '../auth/login.service.js';
import type { RequestContext } from '../auth/session-cookie.js';
import type { WebauthnCredentialIndex } from '../mfa/credential-index.js';
import { newDevice } from '../mfa/devices.js';
import { totpStep } from '../mfa/totp.js';
import { WebauthnRejected, type WebauthnService } from '../mfa/webauthn.service.js';
import { checkNewPassword, decodePassword, type PasswordHasher } from '../users/passwords.js';
import type { MfaDeviceRecord, UsersStore } from '../users/users.store.js';
import type { WebSession, WebSessionService } from '../web-sessions/web-sessions.service.js';
import type { FoundToken, UserTokensStore } from './user-tokens.store.js';
import type { CredentialChanges } from '../users/credential-changes.js';

export interface CompleteTokenDeps {
  store: UserTokensStore;
  users: UsersStore;
  passwords: PasswordHasher;
  webauthn: WebauthnService;
  credentialIndex: WebauthnCredentialIndex;
  login: LoginService;
  sessions: WebSessionService;
  audit: AuditStore;
  settings: AuthSettings;
  now: Clock;
  credentialChanges: CredentialChanges;
}

export interface CompleteTokenRequest {
  token: string;
  password: string | null;
  second_factor_token?: string | undefined;
  webauthnCreationResponse?: WebauthnCreation | undefined;
  deviceName?: string | undefined;
}

/**
 * `PUT users/password/token`: an invite or reset link is used. The password and second factor
 * given replace whatever the user had (a reset wipes old devices), the link is used up, and the
 * user is signed in. A reset also ends the user's other sessions and any lock.
 */
export class CompleteTokenService {
  constructor(private readonly deps: CompleteTokenDeps) {}

  async complete(body: CompleteTokenRequest, ctx: RequestContext): Promise<WebSession> {
    const token = await this.deps.store.find(body.token, ['invite', 'password']);
    const name = token.record.user;
    const password = body.password === null ? null : decodePassword(body.password);
    if (password !== null) checkNewPassword(password);
    const device = await this.registerDevice(body, token, ctx);
    if (password === null && device?.usage !== 'passwordless') {
      throw badParameter('a password is required unless you register a passkey');
    }
    const passwordHash = password === null ? undefined : await this.deps.passwords.hash(password);
    const credentialId = device?.webauthn?.credentialId;
    const { credentialIndex } = this.deps;
    if (credentialId) await credentialIndex.claim(name, credentialId, ctx, true);
    let replaced: MfaDeviceRecord[];
    try {
      await this.deps.store.consume(token);
      replaced = await this.deps.users.mutateCredentials(name, (current) => ({
        credentials: {
          ...(passwordHash ? { passwordHash } : {}),
          devices: device
            ? [{ ...device, ...this.withHandle(device, current.webauthnUserId) }]
            : [],
          ...(current.webauthnUserId ? { webauthnUserId: current.webauthnUserId } : {}),
        },
        result: current.devices,
      }));
    } catch (error) {
      if (credentialId) await credentialIndex.release(name, credentialId);
      throw error;
    }
    if (credentialId) await credentialIndex.confirm(name, credentialId);
    // A reset wipes the old devices: their keys may be registered again, by anyone.
    for (const old of replaced) {
      const oldId = old.webauthn?.credentialId;
      if (oldId && oldId !== credentialId) await credentialIndex.release(name, oldId);
    }
    const user = await this.deps.users.mutate(name, (each) => ({ ...each, status: {} }));
    // Before the new session is made, so that it (made after the stamp) counts.
    if (token.record.type === 'password') await this.deps.credentialChanges.revokeEarlier(name);

    const addr = remoteAddr(ctx.addr);
    const tokenType = token.record.type === 'invite' ? 'invite' : 'reset';
    await emitAudit(this.deps.audit, 'TPOS011I', { user: name, token_type: tokenType, ...addr });
    if (passwordHash) await emitAudit(this.deps.audit, 'T1005I', { user: name, ...addr });
    if (device) {
      await emitAudit(this.deps.audit, 'T1006I', {
        user: name,
        mfa_device_name: device.name,
        mfa_device_uuid: device.id,
        mfa_device_type: device.type === 'totp' ? 'TOTP' : 'WebAuthn',
        mfa_device_usage: device.usage,
        ...addr,
      });
    }
    const method =
      device?.usage === 'passwordless' && password === null
        ? 'passwordless'
        : device?.type === 'webauthn'
          ? 'password+webauthn'
          : device
            ? 'password+otp'
            : 'password';
    return this.deps.login.signIn(user, method, ctx, device ?? undefined);
  }

  /** The device the request registers, if any; required unless second_factor is off or optional. */
  private async registerDevice(
    body: CompleteTokenRequest,
    token: FoundToken,
    ctx: RequestContext,
  ): Promise<MfaDeviceRecord | undefined> {
    const mode = this.deps.settings.secondFactor;
    const now = this.deps.now();
    if (body.webauthnCreationResponse) {
      if (!webauthnAllowed(mode))
        throw badParameter(`hardware keys are not accepted (second_factor is ${mode})`);
      const { usage, credential } = await this.deps.webauthn
        .verifyRegistration({
          response: body.webauthnCreationResponse as unknown as RegistrationResponseJSON,
          user: token.record.user,
          tokenHash: token.hash,
          origin: ctx.origin,
        })
        .catch((error: unknown) => {
          throw error instanceof WebauthnRejected ? badParameter(error.message) : error;
        });
      return newDevice({
        name: body.deviceName,
        now,
        usage,
        webauthn: { ...credential, userHandle: '' },
      });
    }
    if (body.second_factor_token) {
      if (!totpAllowed(mode))
        throw badParameter(`authenticator apps are not accepted (second_factor is ${mode})`);
      const secret = token.record.totpSecret;
      const step = secret ? totpStep(secret, body.second_factor_token.trim(), now) : null;
      if (!secret || step === null) {
        throw badParameter('invalid authenticator code: scan the QR code shown and try again');
      }
      return newDevice({ name: body.deviceName, now, usage: 'mfa', totp: { secret, step } });
    }
    if (mode === 'off' || mode === 'optional') return undefined;
    throw badParameter('a second factor is required: an authenticator code or a hardware key');
  }

  private withHandle(device: MfaDeviceRecord, handle: string | undefined) {
    return device.webauthn ? { webauthn: { ...device.webauthn, userHandle: handle ?? '' } } : {};
  }
}
