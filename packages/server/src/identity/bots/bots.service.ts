import { botNamePattern, botNameRule } from '@postern/contracts';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { formatDuration } from '../../config/duration.js';
import { badParameter, notFound } from '../../errors.js';
import { emitAudit } from '../../modules/audit/emit.js';
import type { AuditStore } from '../../modules/audit/index.js';
import type { UsersService } from '../users/users.service.js';
import type { UserResource, UsersStore } from '../users/users.store.js';
import type { BotInstanceRecord, BotOidcRule, BotsStore } from './bots.store.js';
import { checkOidcRule } from './ci-id-token.js';

/**
 * A bot's join token lives an hour unless asked otherwise: it is pasted into a CI secret or a
 * service's unit file right away, and then used once.
 */
export const botTokenDefaultTtlMs = 3600_000;
export const botTokenMaxTtlMs = 7 * 24 * 3600_000;

/** The user every bot acts as: its roles and traits are that user's. */
export const botUserName = (bot: string) => `bot-${bot}`;

/** The user of bot `bot`: `bot-<name>`, and made as that bot (a person may not be named so). */
export async function findBotUser(
  users: Pick<UsersStore, 'get'>,
  bot: string,
): Promise<UserResource | undefined> {
  const found = await users.get(botUserName(bot));
  return found && found.user.spec.bot === bot ? found.user : undefined;
}

export interface BotJson {
  name: string;
  user: string;
  roles: string[];
  logins: string[];
  createdAt: string;
  instances: BotInstanceRecord[];
  /** Unused join tokens, by their last four characters. */
  tokens: { hint: string; expires: string }[];
  /** `oidc` when CI jobs whose ID token matches the rule join without a token. */
  joinMethod: 'token' | 'oidc';
  oidc?: BotOidcRule;
}

export interface IssuedBotToken {
  /** The secret: shown once, never stored. */
  token: string;
  expires: string;
}

export interface BotsDeps {
  users: UsersService;
  store: BotsStore;
  audit: AuditStore;
  now: Clock;
}

/**
 * Machine identities (docs/bots.md): a CI job or a service that needs short-lived credentials
 * without a person signing in. A bot is a user `bot-<name>` with roles and no password; its
 * copies join with single-use tokens (bot-identity.service.ts). These are the admin's rules,
 * shared by every caller (the CLI on the host today).
 */
export class BotsService {
  constructor(private readonly deps: BotsDeps) {}

  /**
   * The bot's user, and its way in: a single-use join token, or with `oidc` the rule CI jobs'
   * ID tokens must match (no token then; `newToken` can still add one).
   */
  async create(
    input: {
      name: string;
      roles: string[];
      logins?: string[];
      tokenTtlMs?: number;
      oidc?: BotOidcRule;
    },
    by: string,
  ): Promise<{ bot: BotJson; token?: IssuedBotToken }> {
    const name = checkBotName(input.name);
    if (input.roles.length === 0) throw badParameter('a bot needs at least one role');
    const ttlMs = checkTokenTtl(input.tokenTtlMs);
    const oidc = input.oidc && checkOidcRule(input.oidc);
    const user = await this.deps.users.create(
      { name: botUserName(name), roles: input.roles, logins: input.logins ?? [], bot: name },
      by,
    );
    await emitAudit(this.deps.audit, 'TB001I', {
      user: by,
      bot_name: name,
      roles: user.spec.roles,
      ...(oidc ? { join_method: 'oidc', oidc_issuer: oidc.issuer } : { join_method: 'token' }),
    });
    if (oidc) {
      await this.deps.store.setRule(name, oidc);
      return { bot: await this.describe(user) };
    }
    const token = await this.issueToken(name, ttlMs, by);
    return { bot: await this.describe(user), token };
  }

  /**
   * Changes what the bot may do and how its copies join: roles and logins replace the ones it
   * has (its running copies get them at their next renewal); `oidc` replaces the rule CI jobs'
   * ID tokens must match, and `null` removes it (copies then join with tokens only).
   */
  async update(
    name: string,
    change: { roles?: string[]; logins?: string[]; oidc?: BotOidcRule | null },
    by: string,
  ): Promise<BotJson> {
    let user = await this.userOf(name);
    if (change.roles?.length === 0) throw badParameter('a bot needs at least one role');
    const oidc = change.oidc && checkOidcRule(change.oidc);
    if (change.roles || change.logins) {
      user = await this.deps.users.update(
        {
          name: botUserName(name),
          ...(change.roles ? { roles: change.roles } : {}),
          ...(change.logins ? { traits: { logins: change.logins } } : {}),
        },
        by,
      );
    }
    if (oidc) await this.deps.store.setRule(name, oidc);
    if (change.oidc === null) await this.deps.store.deleteRule(name);
    const rule = oidc ?? (change.oidc === null ? null : await this.deps.store.rule(name));
    await emitAudit(this.deps.audit, 'TB002I', {
      user: by,
      bot_name: name,
      roles: user.spec.roles,
      ...(rule ? { join_method: 'oidc', oidc_issuer: rule.issuer } : { join_method: 'token' }),
    });
    return this.describe(user);
  }

  /** Another join token: for a second copy of the bot, or one whose certificate ran out. */
  async newToken(
    name: string,
    tokenTtlMs: number | undefined,
    by: string,
  ): Promise<IssuedBotToken> {
    await this.userOf(name);
    const token = await this.issueToken(name, checkTokenTtl(tokenTtlMs), by);
    await emitAudit(this.deps.audit, 'TB004I', { user: by, bot_name: name });
    return token;
  }

  async list(): Promise<BotJson[]> {
    return Promise.all((await this.users()).map((user) => this.describe(user)));
  }

  /** The bots' users, by bot name: what a page is cut from before its bots are read. */
  async users(): Promise<UserResource[]> {
    const bots = (await this.deps.users.list()).filter((user) => user.spec.bot);
    return bots.sort((a, b) => (a.spec.bot ?? '').localeCompare(b.spec.bot ?? ''));
  }

  async get(name: string): Promise<BotJson> {
    return this.describe(await this.userOf(name));
  }

  /** The bot's user (which ends its sessions), its tokens and its instances. */
  async remove(name: string, by: string): Promise<void> {
    await this.userOf(name);
    await this.deps.store.deleteTokensOf(name);
    await this.deps.store.deleteRule(name);
    await this.deps.store.deleteInstancesOf(name);
    await this.deps.users.remove(botUserName(name), by);
    await emitAudit(this.deps.audit, 'TB003I', { user: by, bot_name: name });
  }

  private async userOf(name: string): Promise<UserResource> {
    const user = await findBotUser(this.deps.users.store, checkBotName(name));
    if (!user) throw notFound(`bot ${name} not found`);
    return user;
  }

  private async issueToken(bot: string, ttlMs: number, by: string): Promise<IssuedBotToken> {
    // 128 random bits, hex, as the agents' join tokens.
    const token = randomBytes(16).toString('hex');
    const now = this.deps.now();
    const expires = new Date(now + ttlMs).toISOString();
    await this.deps.store.createToken(token, {
      bot,
      expires,
      hint: token.slice(-4),
      createdAt: new Date(now).toISOString(),
      createdBy: by,
    });
    return { token, expires };
  }

  /** A bot as the lists show it, from its user. */
  async describe(user: UserResource): Promise<BotJson> {
    const name = user.spec.bot ?? '';
    const [instances, tokens, oidc] = await Promise.all([
      this.deps.store.instancesOf(name),
      this.deps.store.tokensOf(name),
      this.deps.store.rule(name),
    ]);
    return {
      name,
      user: user.metadata.name,
      roles: user.spec.roles,
      logins: user.spec.traits.logins,
      createdAt: user.spec.createdAt,
      instances,
      tokens: tokens.map(({ hint, expires }) => ({ hint, expires })),
      joinMethod: oidc ? 'oidc' : 'token',
      ...(oidc ? { oidc } : {}),
    };
  }
}

function checkBotName(name: string): string {
  if (!botNamePattern.test(name)) {
    throw badParameter(`bot name '${name}': use ${botNameRule}`);
  }
  return name;
}

function checkTokenTtl(ttlMs: number | undefined): number {
  const ttl = ttlMs ?? botTokenDefaultTtlMs;
  if (!(ttl > 0 && ttl <= botTokenMaxTtlMs)) {
    throw badParameter(
      `token ttl: expected more than 0 and at most ${formatDuration(botTokenMaxTtlMs)}`,
    );
  }
  return ttl;
}
