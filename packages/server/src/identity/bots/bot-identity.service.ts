import { randomUUID } from 'node:crypto';
import type { BotJoinRequest, BotRenewRequest, SshCertsResponse } from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { accessDenied, ApiError, notAuthenticated } from '../../errors.js';
import type { LocksService } from '../../access-control/locks/locks.service.js';
import { hostActor } from '../../access-control/access/actor.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import type { AuditStore } from '../../modules/audit/index.js';
import {
  POSTERN_BOT_GENERATION_EXTENSION,
  POSTERN_BOT_INSTANCE_EXTENSION,
} from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { certifiableKey, type CertIssuer } from '../cli-login/cert-issuer.js';
import type { UserResource, UsersStore } from '../users/users.store.js';
import { botUserName, findBotUser } from './bots.service.js';
import type { BotsStore } from './bots.store.js';
import { IdTokenRefused, type CiIdTokens } from './ci-id-token.js';

/** A bot's certificate lives an hour unless it asks for less (or its roles allow less). */
export const botCertDefaultTtlMs = 3600_000;

/** One answer for every token that does not work, so a guess learns nothing. */
const invalidBotToken = () =>
  new ApiError('access_denied', 'the bot join token is not valid (or no longer valid)');

/** Who a join let in, and how. */
interface Admitted {
  bot: string;
  user: UserResource;
  method: 'token' | 'oidc';
  /** The ID token's subject (a CI job's repository and ref, say), for the audit. */
  subject?: string;
}

export interface BotIdentityDeps {
  store: BotsStore;
  /** Checks CI jobs' ID tokens against a bot's rule. */
  idTokens: Pick<CiIdTokens, 'verify'>;
  users: UsersStore;
  issuer: Pick<CertIssuer, 'issue'>;
  locks: Pick<LocksService, 'create'>;
  audit: AuditStore;
  now: Clock;
}

/** Who signed a renewal (CertRequestAuth.identify): the bot's user and its certificate's extensions. */
export interface RenewingIdentity {
  user: string;
  extensions: Record<string, string>;
}

/**
 * A bot's certificates. It joins once with a single-use token and gets the first; after that it
 * renews with the certificate it holds, for a new key. Each certificate carries the instance's
 * generation, which the renewal must match: two copies of one identity cannot both keep renewing,
 * and when an old generation turns up the bot is locked (as the reference's renewable
 * certificates do), since someone else holds a copy of its key.
 */
export class BotIdentityService {
  constructor(private readonly deps: BotIdentityDeps) {}

  async join(body: BotJoinRequest, addr: string | undefined): Promise<SshCertsResponse> {
    const publicKey = certifiableKey(body.pub_key);
    const admitted = body.token
      ? await this.admitByToken(body.token, addr)
      : await this.admitByIdToken(body.bot_name ?? '', body.id_token ?? '', addr);
    const { bot, user, method } = admitted;
    const now = new Date(this.deps.now()).toISOString();
    const id = randomUUID();
    let issued: SshCertsResponse;
    try {
      issued = await this.issue({ user, publicKey, instanceId: id, generation: 1 }, body, addr);
    } catch (error) {
      await this.failedJoin(bot, method, (error as Error).message, addr);
      throw error;
    }
    await this.deps.store.createInstance({
      id,
      bot,
      generation: 1,
      joinedAt: now,
      renewedAt: now,
      certExpires: expiryOf(issued),
      ...instanceAddr(addr),
    });
    await emitAudit(this.deps.audit, 'TJ001I', {
      user: user.metadata.name,
      bot_name: bot,
      method,
      bot_instance_id: id,
      ...(admitted.subject ? { oidc_subject: admitted.subject } : {}),
      ...remoteAddr(addr),
    });
    return issued;
  }

  /** The bot a single-use token was for; the token is used up whatever follows. */
  private async admitByToken(token: string, addr: string | undefined): Promise<Admitted> {
    const bot = (await this.deps.store.takeToken(token))?.bot;
    const user = bot ? await findBotUser(this.deps.users, bot) : undefined;
    if (!bot || !user) {
      await this.failedJoin(bot ?? '', 'token', 'the join token is not valid', addr);
      throw invalidBotToken();
    }
    return { bot, user, method: 'token' };
  }

  /** A CI job's ID token that matches the bot's rule, once. */
  private async admitByIdToken(
    bot: string,
    idToken: string,
    addr: string | undefined,
  ): Promise<Admitted> {
    const refuse = async (reason: string) => {
      await this.failedJoin(bot, 'oidc', reason, addr);
      return new ApiError('access_denied', `bot ${bot} cannot join with this ID token: ${reason}`);
    };
    const user = await findBotUser(this.deps.users, bot);
    const rule = user && (await this.deps.store.rule(bot));
    if (!user || !rule) throw await refuse('no such bot joins with an ID token');
    let claims;
    try {
      claims = await this.deps.idTokens.verify(rule, idToken);
    } catch (error) {
      if (!(error instanceof IdTokenRefused)) throw error;
      throw await refuse(error.message);
    }
    if (!(await this.deps.store.useIdTokenOnce(idToken, new Date(claims.exp * 1000)))) {
      throw await refuse('the ID token was used already');
    }
    return { bot, user, method: 'oidc', ...(claims.sub ? { subject: claims.sub } : {}) };
  }

  async renew(
    signer: RenewingIdentity,
    body: BotRenewRequest,
    addr: string | undefined,
  ): Promise<SshCertsResponse> {
    const publicKey = certifiableKey(body.pub_key);
    const found = await this.deps.users.get(signer.user);
    const bot = found?.user.spec.bot;
    const id = signer.extensions[POSTERN_BOT_INSTANCE_EXTENSION];
    const generation = Number(signer.extensions[POSTERN_BOT_GENERATION_EXTENSION]);
    if (!found || !bot || !id || !Number.isSafeInteger(generation)) {
      throw accessDenied("only a bot's certificate renews here: people run postern login");
    }
    const current = await this.deps.store.instance(bot, id);
    if (!current) {
      throw notAuthenticated(
        `bot ${bot}'s instance ${id} is gone (removed, or its certificate ran out): join again with a new token`,
      );
    }
    if (current.instance.generation !== generation) {
      await this.lockCopiedIdentity(bot, id, generation, current.instance.generation, addr);
    }
    const next = generation + 1;
    const issued = await this.issue(
      { user: found.user, publicKey, instanceId: id, generation: next },
      body,
      addr,
    );
    const renewed = {
      ...current.instance,
      generation: next,
      renewedAt: new Date(this.deps.now()).toISOString(),
      certExpires: expiryOf(issued),
      ...instanceAddr(addr),
    };
    // Two renewals with the same certificate: one wins, the other is a copy.
    if (!(await this.deps.store.replaceInstance(renewed, current.revision))) {
      await this.lockCopiedIdentity(bot, id, generation, generation + 1, addr);
    }
    return issued;
  }

  private issue(
    cert: { user: UserResource; publicKey: string; instanceId: string; generation: number },
    body: { ttl?: number },
    addr: string | undefined,
  ) {
    return this.deps.issuer.issue({
      user: cert.user.metadata.name,
      roles: cert.user.spec.roles,
      publicKey: cert.publicKey,
      requestedTtlMs: body.ttl ?? botCertDefaultTtlMs,
      addr,
      extensions: {
        [POSTERN_BOT_INSTANCE_EXTENSION]: cert.instanceId,
        [POSTERN_BOT_GENERATION_EXTENSION]: String(cert.generation),
      },
    });
  }

  private async lockCopiedIdentity(
    bot: string,
    id: string,
    presented: number,
    expected: number,
    addr: string | undefined,
  ): Promise<never> {
    await this.deps.locks.create(
      {
        targets: { user: botUserName(bot) },
        message: `bot ${bot}: instance ${id} renewed with certificate generation ${presented}, expected ${expected}: a copy of its identity may be in use`,
      },
      hostActor('postern'),
    );
    await this.deps.store.deleteInstance(bot, id);
    await emitAudit(this.deps.audit, 'TCB001W', {
      user: botUserName(bot),
      bot_name: bot,
      bot_instance_id: id,
      presented_generation: presented,
      expected_generation: expected,
      ...remoteAddr(addr),
    });
    throw accessDenied(
      `bot ${bot} is locked: its certificate is not the latest one issued (a copy of its identity may be in use); an admin removes the lock and gives it a new join token`,
    );
  }

  private async failedJoin(
    bot: string,
    method: Admitted['method'],
    reason: string,
    addr: string | undefined,
  ) {
    await emitAudit(this.deps.audit, 'TJ001E', {
      bot_name: bot,
      method,
      success: false,
      error: reason,
      ...remoteAddr(addr),
    });
  }
}

/** Where an instance last called from (the record's field; audit events name it `addr.remote`). */
const instanceAddr = (addr: string | undefined) => (addr ? { addr } : {});

const expiryOf = (issued: SshCertsResponse) =>
  parseCertificate(issued.cert).validBefore.toISOString();
