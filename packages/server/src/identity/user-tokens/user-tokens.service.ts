import {
  userTokenDefaultTtlMs,
  userTokenMaxTtlMs,
  type RegisterChallenge,
  type UserToken,
  type UserTokenDetails,
} from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { totpAllowed, webauthnAllowed } from '../../config/auth-config.js';
import type { Config } from '../../config/config.js';
import { formatDuration, parseDuration } from '../../config/duration.js';
import { badParameter } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import { ensureWebauthnUserId } from '../mfa/devices.js';
import { newTotpSecret, totpQrCode, totpUri } from '../mfa/totp.js';
import type { WebauthnService } from '../mfa/webauthn.service.js';
import type { CredentialChanges } from '../users/credential-changes.js';
import type { UsersStore } from '../users/users.store.js';
import { badToken, type FoundToken, type UserTokensStore } from './user-tokens.store.js';

/** Privilege tokens prove a fresh second factor for five minutes (reference: the same). */
export const privilegeTokenTtlMs = 5 * 60 * 1000;

export interface UserTokensDeps {
  store: UserTokensStore;
  users: UsersStore;
  webauthn: WebauthnService;
  audit: AuditStore;
  config: Config;
  now: Clock;
  /** A reset revokes what the user holds at once: sessions, certificates, terminals. */
  credentialChanges: CredentialChanges;
}

/** Invite and reset links, and privilege tokens: who may create them and what they offer. */
export class UserTokensService {
  constructor(private readonly deps: UserTokensDeps) {}

  /** An invite (new user) or reset link for an existing user; older links of theirs stop working. */
  async create(
    name: string,
    type: 'invite' | 'password',
    ttl: string | number | undefined,
    by: string,
    addr?: string,
  ): Promise<UserToken> {
    const ttlMs = tokenTtl(ttl);
    const found = await this.deps.users.get(name);
    if (!found) throw badParameter(`user ${name} does not exist`);
    // A bot signs in with its certificate only: a password would be a second, human way in.
    if (found.user.spec.bot) {
      throw badParameter(
        `${name} is bot ${found.user.spec.bot}'s identity and has no password: give it a new join token with postern bots token ${found.user.spec.bot}`,
      );
    }
    await this.deps.store.deleteLinksOf(name);
    // An administrator resets a user whose credentials may be in other hands: they stop now,
    // not when the link is used.
    if (type === 'password') await this.deps.credentialChanges.revokeEarlier(name);
    const now = this.deps.now();
    const expiry = new Date(now + ttlMs).toISOString();
    const tokenId = await this.deps.store.create({
      user: name,
      type,
      created: new Date(now).toISOString(),
      expires: expiry,
    });
    await emitAudit(this.deps.audit, 'T6000I', {
      user: by,
      name,
      token_type: type === 'invite' ? 'invite' : 'reset',
      expires: expiry,
      ...remoteAddr(addr),
    });
    return { tokenId, user: name, expiry, type };
  }

  async createPrivilege(user: string, addr?: string): Promise<string> {
    const now = this.deps.now();
    const expires = new Date(now + privilegeTokenTtlMs).toISOString();
    const created = new Date(now).toISOString();
    const tokenId = await this.deps.store.create({ user, type: 'privilege', created, expires });
    await emitAudit(this.deps.audit, 'T6002I', { user, ...remoteAddr(addr) });
    return tokenId;
  }

  /** What the invite/reset screen shows. Each read draws a new TOTP secret (see contracts). */
  async details(tokenId: string): Promise<UserTokenDetails> {
    const token = await this.deps.store.find(tokenId, ['invite', 'password']);
    const { qrCode, secret } = await this.rotateTotp(token);
    const { user, expires, type } = token.record;
    return {
      tokenId,
      user,
      expiry: expires,
      type: type as 'invite' | 'password',
      qrCode,
      totpSecret: secret,
    };
  }

  /**
   * A registration challenge for a token. Invite and reset links work without a session; a
   * privilege token only for the signed-in user it was issued to.
   */
  async registerChallenge(
    tokenId: string,
    request: { deviceType: 'totp' | 'webauthn'; deviceUsage: 'mfa' | 'passwordless' },
    signedInUser: string | null,
  ): Promise<RegisterChallenge> {
    const token = await this.deps.store.find(tokenId, ['invite', 'password', 'privilege']);
    if (token.record.type === 'privilege' && token.record.user !== signedInUser) throw badToken();
    const { secondFactor, allowPasswordless } = this.deps.config.auth;
    if (request.deviceType === 'totp') {
      if (!totpAllowed(secondFactor)) {
        throw badParameter(
          `authenticator apps are not accepted (second_factor is ${secondFactor})`,
        );
      }
      return { totp: await this.rotateTotp(token) };
    }
    if (!webauthnAllowed(secondFactor)) {
      throw badParameter(`hardware keys are not accepted (second_factor is ${secondFactor})`);
    }
    if (request.deviceUsage === 'passwordless' && !allowPasswordless) {
      throw badParameter('passwordless sign-in is disabled on this cluster');
    }
    const user = token.record.user;
    const userId = await ensureWebauthnUserId(this.deps.users, user);
    // A reset replaces every device, so only the account page excludes the keys already known.
    const existing =
      token.record.type === 'privilege' ? (await this.deps.users.credentials(user)).devices : [];
    const publicKey = await this.deps.webauthn.registrationOptions({
      user,
      userId,
      usage: request.deviceUsage,
      existing,
      tokenHash: token.hash,
    });
    return { webauthn: { publicKey } };
  }

  private async rotateTotp(token: FoundToken): Promise<{ qrCode: string; secret: string }> {
    const secret = newTotpSecret();
    await this.deps.store.update(token, { ...token.record, totpSecret: secret });
    const uri = totpUri(secret, this.deps.config.clusterName, token.record.user);
    return { qrCode: await totpQrCode(uri), secret };
  }
}

function tokenTtl(ttl: string | number | undefined): number {
  let ms = userTokenDefaultTtlMs;
  if (typeof ttl === 'number') ms = ttl;
  else if (ttl !== undefined) {
    try {
      ms = parseDuration(ttl, 'ttl');
    } catch (error) {
      throw badParameter((error as Error).message);
    }
  }
  if (!Number.isFinite(ms) || ms <= 0) throw badParameter('ttl must be a positive duration');
  if (ms > userTokenMaxTtlMs) {
    throw badParameter(`ttl must be at most ${formatDuration(userTokenMaxTtlMs)}`);
  }
  return ms;
}
