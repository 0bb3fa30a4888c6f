import {
  AlreadyExistsError,
  CompareFailedError,
  deleteIfPresent,
  NotFoundError,
  type Backend,
  type Item,
} from '../../backend/index.js';
import { hashJoinToken } from '../../modules/join-tokens/join-tokens.store.js';

export const botTokensPrefix = '/bot_tokens/';
export const botInstancesPrefix = '/bot_instances/';
const botRulesPrefix = '/bot_join_rules/';
const usedIdTokensPrefix = '/bot_used_id_tokens/';

/**
 * Who may join as a bot without a token: CI jobs whose OpenID Connect ID token (GitHub Actions,
 * GitLab CI…) comes from `issuer`, for `audience`, with every claim in `claims` equal.
 */
export interface BotOidcRule {
  issuer: string;
  audience: string;
  claims: Record<string, string>;
}

/**
 * A bot's join token, under `/bot_tokens/<sha256 of the token>`: the token itself is never
 * stored. The backend's TTL is the token's expiry; joining deletes it (single use).
 */
export interface BotTokenRecord {
  bot: string;
  /** RFC 3339. */
  expires: string;
  /** The token's last four characters, so a listing can tell tokens apart. */
  hint: string;
  createdAt: string;
  createdBy: string;
}

/**
 * One running copy of a bot (`postern bot start` on one host), under
 * `/bot_instances/<bot>/<id>`. `generation` counts its certificates: each renewal must present
 * the latest one, so a copied identity that renews is noticed (bot-identity.service.ts).
 */
export interface BotInstanceRecord {
  id: string;
  bot: string;
  generation: number;
  joinedAt: string;
  renewedAt: string;
  /** RFC 3339: when its current certificate ends; the record goes a day later. */
  certExpires: string;
  addr?: string;
}

/** How long an instance is listed after its certificate ended (it can no longer renew). */
const instanceKeepMs = 24 * 3600_000;

export class BotsStore {
  constructor(private readonly backend: Backend) {}

  async createToken(token: string, record: BotTokenRecord): Promise<void> {
    await this.backend.create({
      key: botTokensPrefix + hashJoinToken(token),
      value: JSON.stringify(record),
      expires: new Date(record.expires),
    });
  }

  /**
   * Uses a token up: the record if it was live, and deleted at the revision read, so of two
   * joins with one token exactly one gets it.
   */
  async takeToken(token: string): Promise<BotTokenRecord | null> {
    const key = botTokensPrefix + hashJoinToken(token);
    const item = await this.backend.get(key);
    if (!item) return null;
    try {
      await this.backend.delete(key, item.revision);
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof CompareFailedError) return null;
      throw error;
    }
    return JSON.parse(item.value) as BotTokenRecord;
  }

  async tokensOf(bot: string): Promise<BotTokenRecord[]> {
    const { items } = await this.backend.list({ prefix: botTokensPrefix });
    return items.map(parse<BotTokenRecord>).filter((token) => token.bot === bot);
  }

  async deleteTokensOf(bot: string): Promise<void> {
    const { items } = await this.backend.list({ prefix: botTokensPrefix });
    for (const item of items) {
      if (parse<BotTokenRecord>(item).bot !== bot) continue;
      await deleteIfPresent(this.backend, item.key);
    }
  }

  async setRule(bot: string, rule: BotOidcRule): Promise<void> {
    await this.backend.upsert({ key: botRulesPrefix + bot, value: JSON.stringify(rule) });
  }

  async rule(bot: string): Promise<BotOidcRule | null> {
    const item = await this.backend.get(botRulesPrefix + bot);
    return item ? parse<BotOidcRule>(item) : null;
  }

  async deleteRule(bot: string): Promise<void> {
    await deleteIfPresent(this.backend, botRulesPrefix + bot);
  }

  /**
   * Marks an ID token used, until it expires: false if it was already. A CI job's token is
   * good for minutes, and whoever saw it on the way must not join with it again.
   */
  async useIdTokenOnce(idToken: string, expires: Date): Promise<boolean> {
    try {
      await this.backend.create({
        key: usedIdTokensPrefix + hashJoinToken(idToken),
        value: '{}',
        expires,
      });
      return true;
    } catch (error) {
      if (error instanceof AlreadyExistsError) return false;
      throw error;
    }
  }

  async createInstance(instance: BotInstanceRecord): Promise<void> {
    await this.backend.create(instanceItem(instance));
  }

  async instance(
    bot: string,
    id: string,
  ): Promise<{ instance: BotInstanceRecord; revision: string } | null> {
    const item = await this.backend.get(instanceKey(bot, id));
    return item ? { instance: parse<BotInstanceRecord>(item), revision: item.revision } : null;
  }

  /** False when another renewal changed it since `revision` was read (or it was deleted). */
  async replaceInstance(instance: BotInstanceRecord, revision: string): Promise<boolean> {
    try {
      await this.backend.update(instanceItem(instance), revision);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof CompareFailedError) return false;
      throw error;
    }
  }

  async deleteInstance(bot: string, id: string): Promise<void> {
    await deleteIfPresent(this.backend, instanceKey(bot, id));
  }

  async instancesOf(bot: string): Promise<BotInstanceRecord[]> {
    const { items } = await this.backend.list({ prefix: `${botInstancesPrefix}${bot}/` });
    return items.map(parse<BotInstanceRecord>);
  }

  async deleteInstancesOf(bot: string): Promise<void> {
    await this.backend.deleteRange(`${botInstancesPrefix}${bot}/`);
  }
}

const instanceKey = (bot: string, id: string) => `${botInstancesPrefix}${bot}/${id}`;

const instanceItem = (instance: BotInstanceRecord) => ({
  key: instanceKey(instance.bot, instance.id),
  value: JSON.stringify(instance),
  expires: new Date(Date.parse(instance.certExpires) + instanceKeepMs),
});

const parse = <T>(item: Item) => JSON.parse(item.value) as T;
