import type {
  BotJson,
  BotListResponse,
  CreateBotRequest,
  CreateBotResponse,
  IssuedBotToken,
  UpdateBotRequest,
} from '@postern/contracts';
import { assertGrantable, assertMay, may, type Actor } from '../../access-control/access/actor.js';
import { parseDuration } from '../../access-control/rbac/index.js';
import { badParameter, notFound } from '../../errors.js';
import type { UserResource } from '../users/users.store.js';
import type { BotJson as StoredBotJson, BotsService } from './bots.service.js';

/** What a role rule on `bot` is judged against: the bot's name, roles and logins. */
const botResource = (name: string, roles: readonly string[], logins: readonly string[] = []) => ({
  kind: 'bot',
  metadata: { name },
  spec: { roles, logins },
});
const resourceOf = (user: UserResource) =>
  botResource(user.spec.bot ?? '', user.spec.roles, user.spec.traits.logins);

export interface BotPageQuery {
  limit: number;
  startKey: string;
  search: string;
}

/**
 * Manage Bots through the API: who may list, read, create, change and delete which bot. The
 * route checked that the verb MIGHT be allowed on bots; here each bot is checked itself (rules
 * with `where` clauses). A bot acts with its roles, so giving it roles, or a join token that
 * lets a new copy act with them, is for someone who could grant those roles to a person.
 */
export class BotsAdminService {
  constructor(private readonly bots: BotsService) {}

  /**
   * A page of the bots the actor may read, by name. Search and the filter come before the page,
   * so neither a page nor the total counts a bot the actor cannot see.
   */
  async page(query: BotPageQuery, actor: Actor): Promise<BotListResponse> {
    const words = query.search.toLowerCase().split(/\s+/).filter(Boolean);
    const matching = (await this.bots.users()).filter(
      (user) => may(actor, 'bot', 'read', resourceOf(user)) && matchesAll(user, words),
    );
    const after = matching.filter((user) => (user.spec.bot ?? '') > query.startKey);
    const page = after.slice(0, query.limit);
    const more = after.length > page.length;
    return {
      items: await Promise.all(page.map(async (user) => botJson(await this.bots.describe(user)))),
      startKey: more ? (page.at(-1)?.spec.bot ?? '') : '',
      totalCount: matching.length,
    };
  }

  async get(name: string, actor: Actor): Promise<BotJson> {
    const bot = await this.readable(name, actor);
    return botJson(bot);
  }

  async create(body: CreateBotRequest, actor: Actor): Promise<CreateBotResponse> {
    const { name, roles, logins = [] } = body;
    assertMay(actor, 'bot', 'create', botResource(name, roles, logins), name);
    assertGrantable(actor, roles);
    const tokenTtlMs = tokenTtl(body.token_ttl);
    const created = await this.bots.create(
      {
        name,
        roles,
        logins,
        ...(tokenTtlMs === undefined ? {} : { tokenTtlMs }),
        ...(body.oidc ? { oidc: body.oidc } : {}),
      },
      actor.name,
    );
    // A bot CI jobs join with their ID token gets no token (`newToken` can still add one).
    return { bot: botJson(created.bot), ...(created.token ? { token: created.token } : {}) };
  }

  async update(name: string, body: UpdateBotRequest, actor: Actor): Promise<BotJson> {
    const current = await this.readable(name, actor);
    assertMay(actor, 'bot', 'update', botResource(name, current.roles, current.logins), name);
    // Keeping or removing a role grants nothing; only the roles added are checked.
    const added = (body.roles ?? []).filter((role) => !current.roles.includes(role));
    assertGrantable(actor, added);
    // A new CI rule lets other jobs join as the bot: as much as a new token (`newToken`).
    if (body.oidc) assertGrantable(actor, body.roles ?? current.roles);
    return botJson(await this.bots.update(name, body, actor.name));
  }

  /** One more join token: a new copy acts with the bot's roles, so they must be grantable. */
  async newToken(name: string, ttl: string | undefined, actor: Actor): Promise<IssuedBotToken> {
    const current = await this.readable(name, actor);
    assertMay(actor, 'bot', 'create', botResource(name, current.roles, current.logins), name);
    assertGrantable(actor, current.roles);
    return this.bots.newToken(name, tokenTtl(ttl), actor.name);
  }

  async remove(name: string, actor: Actor): Promise<void> {
    const current = await this.readable(name, actor);
    assertMay(actor, 'bot', 'delete', botResource(name, current.roles, current.logins), name);
    await this.bots.remove(name, actor.name);
  }

  /** The bot, when the actor may read it; one it may not read is reported like a missing one. */
  private async readable(name: string, actor: Actor): Promise<StoredBotJson> {
    const bot = await this.bots.get(name);
    if (!may(actor, 'bot', 'read', botResource(bot.name, bot.roles, bot.logins))) {
      throw notFound(`bot ${name} not found`);
    }
    return bot;
  }
}

function matchesAll(user: UserResource, words: string[]): boolean {
  const fields = [user.spec.bot ?? '', ...user.spec.roles, ...user.spec.traits.logins];
  const lowered = fields.map((field) => field.toLowerCase());
  return words.every((word) => lowered.some((field) => field.includes(word)));
}

function tokenTtl(ttl: string | undefined): number | undefined {
  if (!ttl) return undefined;
  const ms = parseDuration(ttl);
  if (ms === undefined) {
    throw badParameter(`token_ttl: expected a duration like '30m', '1h' or '24h', got '${ttl}'`);
  }
  return ms;
}

/** The API's shape: each instance with its own fields only (records carry more: the bot's name). */
function botJson(bot: StoredBotJson): BotJson {
  return {
    name: bot.name,
    user: bot.user,
    roles: bot.roles,
    logins: bot.logins,
    createdAt: bot.createdAt,
    joinMethod: bot.joinMethod,
    ...(bot.oidc ? { oidc: bot.oidc } : {}),
    instances: bot.instances.map((instance) => ({
      id: instance.id,
      generation: instance.generation,
      joinedAt: instance.joinedAt,
      renewedAt: instance.renewedAt,
      certExpires: instance.certExpires,
      ...(instance.addr ? { addr: instance.addr } : {}),
    })),
    tokens: bot.tokens,
  };
}
