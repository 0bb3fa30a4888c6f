import type { DeviceUsage, MfaDevice, WebauthnCreation } from '@postern/contracts';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '../../clock.js';
import { totpAllowed, webauthnAllowed, type AuthSettings } from '../../config/auth-config.js';
import { ApiError, badParameter, notFound } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import type { RequestContext } from '../auth/session-cookie.js';
import type { WebauthnCredentialIndex } from '../mfa/credential-index.js';
import { deviceView, newDevice } from '../mfa/devices.js';
import { totpStep } from '../mfa/totp.js';
import { WebauthnRejected, type WebauthnService } from '../mfa/webauthn.service.js';
import type { MfaDeviceRecord, UserCredentials, UsersStore } from '../users/users.store.js';
import {
  badToken,
  type FoundToken,
  type UserTokensStore,
} from '../user-tokens/user-tokens.store.js';
import type { CredentialChanges } from '../users/credential-changes.js';

export interface DevicesDeps {
  users: UsersStore;
  tokens: UserTokensStore;
  webauthn: WebauthnService;
  credentialIndex: WebauthnCredentialIndex;
  audit: AuditStore;
  settings: AuthSettings;
  now: Clock;
  credentialChanges: CredentialChanges;
}

export interface AddDeviceRequest {
  tokenId: string;
  deviceName: string;
  deviceUsage: DeviceUsage;
  secondFactorToken?: string | undefined;
  webauthnRegisterResponse?: WebauthnCreation | undefined;
}

/** Adding and removing second-factor devices, each with a privilege token used once. */
export class DevicesService {
  constructor(private readonly deps: DevicesDeps) {}

  async add(user: string, body: AddDeviceRequest, ctx: RequestContext): Promise<MfaDevice> {
    const token = await this.privilegeToken(body.tokenId, user);
    const name = body.deviceName.trim();
    assertNameFree(await this.deps.users.credentials(user), name);
    const device = await this.newDevice(user, name, body, token, ctx);
    const credentialId = device.webauthn?.credentialId;
    if (credentialId) await this.deps.credentialIndex.claim(user, credentialId, ctx);
    let added: MfaDeviceRecord;
    try {
      await this.deps.tokens.consume(token);
      added = await this.deps.users.mutateCredentials(user, (credentials) => {
        assertNameFree(credentials, name);
        const handle = credentials.webauthnUserId ?? '';
        const stored = device.webauthn
          ? { ...device, webauthn: { ...device.webauthn, userHandle: handle } }
          : device;
        return {
          credentials: { ...credentials, devices: [...credentials.devices, stored] },
          result: stored,
        };
      });
    } catch (error) {
      if (credentialId) await this.deps.credentialIndex.release(user, credentialId);
      throw error;
    }
    if (credentialId) await this.deps.credentialIndex.confirm(user, credentialId);
    await emitAudit(this.deps.audit, 'T1006I', {
      user,
      mfa_device_name: added.name,
      mfa_device_uuid: added.id,
      mfa_device_type: deviceView(added).type,
      mfa_device_usage: added.usage,
      ...remoteAddr(ctx.addr),
    });
    return deviceView(added);
  }

  /** Never leaves the user without a way in: the last device while one is required, or the last passkey of a passwordless account. */
  async remove(
    user: string,
    tokenId: string,
    deviceName: string,
    ctx: RequestContext,
    /** The caller's web session: it stays signed in, every other credential is revoked. */
    keptLineage?: string,
  ): Promise<void> {
    const token = await this.privilegeToken(tokenId, user);
    this.checkRemoval(await this.deps.users.credentials(user), deviceName);
    await this.deps.tokens.consume(token);
    const removed = await this.deps.users.mutateCredentials(user, (credentials) => {
      const device = this.checkRemoval(credentials, deviceName);
      const devices = credentials.devices.filter((each) => each.id !== device.id);
      return { credentials: { ...credentials, devices }, result: device };
    });
    if (removed.webauthn) {
      await this.deps.credentialIndex.release(user, removed.webauthn.credentialId);
    }
    await this.deps.credentialChanges.revokeEarlier(user, keptLineage);
    await emitAudit(this.deps.audit, 'T1007I', {
      user,
      mfa_device_name: removed.name,
      mfa_device_uuid: removed.id,
      mfa_device_type: deviceView(removed).type,
      ...remoteAddr(ctx.addr),
    });
  }

  private checkRemoval(credentials: UserCredentials, deviceName: string): MfaDeviceRecord {
    const device = credentials.devices.find((each) => each.name === deviceName);
    if (!device) throw notFound(`no device named ${deviceName}`);
    const remaining = credentials.devices.filter((each) => each.id !== device.id);
    const mode = this.deps.settings.secondFactor;
    const usable = remaining.filter((each) =>
      each.type === 'totp' ? totpAllowed(mode) : webauthnAllowed(mode),
    );
    if (['on', 'otp', 'webauthn'].includes(mode) && usable.length === 0) {
      throw badParameter(
        `cannot delete the last second-factor device while a second factor is required (second_factor: ${mode})`,
      );
    }
    if (!credentials.passwordHash && !remaining.some((each) => each.usage === 'passwordless')) {
      throw badParameter('cannot delete the last passkey of an account without a password');
    }
    return device;
  }

  /** Throws unless `tokenId` is a live privilege token of `user` (the token-scoped reads). */
  async assertPrivilegeToken(tokenId: string, user: string): Promise<void> {
    await this.privilegeToken(tokenId, user);
  }

  private async privilegeToken(tokenId: string, user: string): Promise<FoundToken> {
    const token = await this.deps.tokens.find(tokenId, ['privilege']);
    if (token.record.user !== user) throw badToken();
    return token;
  }

  private async newDevice(
    user: string,
    name: string,
    body: AddDeviceRequest,
    token: FoundToken,
    ctx: RequestContext,
  ): Promise<MfaDeviceRecord> {
    const { secondFactor: mode, allowPasswordless } = this.deps.settings;
    const now = this.deps.now();
    if (body.webauthnRegisterResponse) {
      if (!webauthnAllowed(mode))
        throw badParameter(`hardware keys are not accepted (second_factor is ${mode})`);
      const { usage, credential } = await this.deps.webauthn
        .verifyRegistration({
          response: body.webauthnRegisterResponse as unknown as RegistrationResponseJSON,
          user,
          tokenHash: token.hash,
          origin: ctx.origin,
        })
        .catch((error: unknown) => {
          throw error instanceof WebauthnRejected ? badParameter(error.message) : error;
        });
      if (usage !== body.deviceUsage) {
        throw badParameter(
          `the registration challenge was for usage ${usage}, not ${body.deviceUsage}`,
        );
      }
      if (usage === 'passwordless' && !allowPasswordless) {
        throw badParameter('passwordless sign-in is disabled on this cluster');
      }
      return newDevice({ name, now, usage, webauthn: { ...credential, userHandle: '' } });
    }
    if (!body.secondFactorToken) {
      throw badParameter('send an authenticator code or a WebAuthn registration response');
    }
    if (!totpAllowed(mode))
      throw badParameter(`authenticator apps are not accepted (second_factor is ${mode})`);
    if (body.deviceUsage === 'passwordless') {
      throw badParameter('an authenticator app cannot be used for passwordless sign-in');
    }
    const secret = token.record.totpSecret;
    const step = secret ? totpStep(secret, body.secondFactorToken.trim(), now) : null;
    if (!secret || step === null) {
      throw badParameter('invalid authenticator code: scan the QR code shown and try again');
    }
    return newDevice({ name, now, usage: 'mfa', totp: { secret, step } });
  }
}

function assertNameFree(credentials: UserCredentials, name: string): void {
  if (credentials.devices.some((device) => device.name === name)) {
    throw new ApiError('already_exists', `a device named ${name} already exists`);
  }
}
