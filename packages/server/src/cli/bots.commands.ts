import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import type { ConfigFlags } from '../config/config.js';
import { parseDuration } from '../config/duration.js';
import { ConfigError } from '../config/config-error.js';
import type { AdminContext } from './admin-context.js';
import { print, withAdmin, withStorageFlags } from './program.js';
import { printTable, type Print } from './table.js';
import { cliActor, list } from './users.commands.js';

/** Loaded in the action: `postern --help` starts without the services (cli/start-up.test.ts). */
async function botsOf(ctx: AdminContext) {
  const { BotsService, BotsStore } = await import('../identity/bots/index.js');
  return new BotsService({
    users: ctx.identity.users,
    store: new BotsStore(ctx.backend),
    audit: ctx.audit,
    now: systemClock,
  });
}

const tokenTtl = (ttl: string | undefined) =>
  ttl === undefined ? undefined : parseDuration(ttl, '--token-ttl');

/** The command the token is for, ready to paste on the bot's host. */
function printJoin(ctx: AdminContext, token: { token: string; expires: string }, print: Print) {
  const proxy = new URL(ctx.baseUrl).host;
  print(`The join token is valid once, until ${token.expires}. On the bot's host, run:`);
  print('');
  print(
    `  postern bot start --proxy ${proxy} --token ${token.token} --destination /var/lib/postern-bot`,
  );
  print('');
  print('(add --insecure while the proxy has its self-signed certificate)');
}

export interface BotsAddOptions {
  roles: string;
  logins?: string;
  tokenTtl?: string;
  /** CI jobs join with their ID token instead of a single-use token (docs/bots.md). */
  oidcIssuer?: string;
  oidcAudience?: string;
  /** `name=value,name=value`: claims the ID token must carry. */
  oidcClaims?: string;
}

/**
 * `postern bots add NAME --roles a,b`: the bot's user, and a join token for its first copy; or
 * with `--oidc-issuer`, the rule CI jobs' ID tokens must match. Returns the token, if one.
 */
export async function botsAdd(
  ctx: AdminContext,
  name: string,
  options: BotsAddOptions,
  print: Print,
): Promise<string | undefined> {
  const oidc = oidcRuleOf(options);
  const bots = await botsOf(ctx);
  const { bot, token } = await bots.create(
    {
      name,
      roles: list(options.roles),
      logins: list(options.logins),
      ...(options.tokenTtl ? { tokenTtlMs: tokenTtl(options.tokenTtl) } : {}),
      ...(oidc ? { oidc } : {}),
    },
    cliActor(),
  );
  print(
    `Bot ${bot.name} has been created; it acts as user ${bot.user} with roles ${bot.roles.join(', ')}.`,
  );
  if (token) printJoin(ctx, token, print);
  if (oidc) printOidcJoin(ctx, bot.name, oidc.audience, print);
  return token?.token;
}

function oidcRuleOf(options: Omit<BotsAddOptions, 'roles'>) {
  const given = [options.oidcIssuer, options.oidcAudience, options.oidcClaims];
  if (given.every((value) => value === undefined)) return undefined;
  if (given.some((value) => value === undefined)) {
    throw new ConfigError('--oidc-issuer, --oidc-audience and --oidc-claims go together');
  }
  const claims: Record<string, string> = {};
  for (const pair of list(options.oidcClaims)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new ConfigError(`--oidc-claims: '${pair}' is not name=value`);
    claims[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return { issuer: options.oidcIssuer!, audience: options.oidcAudience!, claims };
}

function printOidcJoin(ctx: AdminContext, bot: string, audience: string, print: Print) {
  const proxy = new URL(ctx.baseUrl).host;
  print(`CI jobs join with their ID token for audience ${audience}. In the job, run:`);
  print('');
  print(
    `  postern bot start --proxy ${proxy} --bot ${bot} --oidc-token-env POSTERN_ID_TOKEN --destination ./postern-bot --oneshot`,
  );
  print('');
  print(
    "(POSTERN_ID_TOKEN holds the job's ID token; docs/bots.md shows GitHub Actions and GitLab CI)",
  );
}

export interface BotsUpdateOptions {
  roles?: string;
  logins?: string;
  oidcIssuer?: string;
  oidcAudience?: string;
  oidcClaims?: string;
  /** commander's `--no-oidc`: false when given. */
  oidc?: boolean;
}

/**
 * `postern bots update NAME`: new roles or logins (running copies get them at their next
 * renewal), a new rule for CI jobs' ID tokens, or `--no-oidc` to take the rule away.
 */
export async function botsUpdate(
  ctx: AdminContext,
  name: string,
  options: BotsUpdateOptions,
  print: Print,
): Promise<void> {
  const rule = oidcRuleOf(options);
  if (rule && options.oidc === false) {
    throw new ConfigError('--no-oidc and the --oidc-* flags do not go together');
  }
  const change = {
    ...(options.roles !== undefined ? { roles: list(options.roles) } : {}),
    ...(options.logins !== undefined ? { logins: list(options.logins) } : {}),
    ...(rule ? { oidc: rule } : options.oidc === false ? { oidc: null } : {}),
  };
  if (Object.keys(change).length === 0) {
    throw new ConfigError(
      'nothing to change: give --roles, --logins, the --oidc-* flags or --no-oidc',
    );
  }
  const bot = await (await botsOf(ctx)).update(name, change, cliActor());
  const joins = bot.oidc ? `CI jobs' ID tokens from ${bot.oidc.issuer}` : 'join tokens';
  print(`Bot ${bot.name} has been updated: roles ${bot.roles.join(', ')}; it joins with ${joins}.`);
}

/** `postern bots token NAME`: a join token for another copy, or after its certificate ran out. */
export async function botsToken(
  ctx: AdminContext,
  name: string,
  options: { tokenTtl?: string },
  print: Print,
): Promise<string> {
  const token = await (await botsOf(ctx)).newToken(name, tokenTtl(options.tokenTtl), cliActor());
  printJoin(ctx, token, print);
  return token.token;
}

export async function botsList(ctx: AdminContext, print: Print): Promise<void> {
  const bots = await (await botsOf(ctx)).list();
  if (bots.length === 0) {
    print('No bots. Create one with: postern bots add NAME --roles ROLE');
    return;
  }
  const rows = bots.map((bot) => {
    const last = bot.instances
      .map((i) => i.renewedAt)
      .sort()
      .at(-1);
    return [
      bot.name,
      bot.user,
      bot.roles.join(','),
      bot.oidc ? `oidc ${bot.oidc.issuer}` : 'token',
      String(bot.instances.length),
      last ?? '-',
      String(bot.tokens.length),
    ];
  });
  printTable(
    ['Bot', 'User', 'Roles', 'Joins with', 'Instances', 'Last renewal', 'Unused tokens'],
    rows,
    print,
  );
}

/**
 * `postern bots ls NAME`: one bot's running copies, each by the id a `bot_instance` lock names
 * (`postern locks add --bot-instance ID` stops that copy alone).
 */
export async function botInstancesList(
  ctx: AdminContext,
  name: string,
  print: Print,
): Promise<void> {
  const bot = await (await botsOf(ctx)).get(name);
  if (bot.instances.length === 0) {
    print(
      `No running copy of ${name}: none has joined, or their certificates ran out over a day ago.`,
    );
    return;
  }
  printTable(
    ['Instance', 'Generation', 'Joined', 'Last renewal', 'Certificate ends', 'From'],
    bot.instances.map((instance) => [
      instance.id,
      String(instance.generation),
      instance.joinedAt,
      instance.renewedAt,
      instance.certExpires,
      instance.addr ?? '-',
    ]),
    print,
  );
}

export async function botsRemove(ctx: AdminContext, name: string, print: Print): Promise<void> {
  await (await botsOf(ctx)).remove(name, cliActor());
  print(`Bot ${name} has been deleted: its user, tokens and instances are gone.`);
}

/** `postern bots add|update|token|ls|rm`: machine identities (docs/bots.md). */
export function addBotsCommands(program: Command): void {
  const bots = program.command('bots').description('manage machine identities (bots)');
  type Flags = ConfigFlags & BotsAddOptions;

  withStorageFlags(bots.command('add <name>'))
    .description('create a bot and print a single-use join token for postern bot start')
    .requiredOption('--roles <roles>', 'comma-separated role names the bot acts with')
    .option('--logins <logins>', 'comma-separated OS logins the bot may use')
    .option('--token-ttl <duration>', 'how long the join token works (default 1h, at most 168h)')
    .option('--oidc-issuer <url>', 'CI jobs join with their ID token from this issuer instead')
    .option('--oidc-audience <aud>', 'the audience the CI job asks its ID token for')
    .option(
      '--oidc-claims <pairs>',
      'name=value,… the ID token must carry, e.g. repository=acme/deploy',
    )
    .action((name: string, flags: Flags) =>
      withAdmin(flags, (ctx) => botsAdd(ctx, name, flags, print)),
    );

  withStorageFlags(bots.command('update <name>'))
    .description("change a bot's roles, logins or how CI jobs join it")
    .option('--roles <roles>', 'comma-separated role names, replacing the ones it has')
    .option('--logins <logins>', 'comma-separated OS logins, replacing the ones it has')
    .option('--oidc-issuer <url>', 'CI jobs join with their ID token from this issuer')
    .option('--oidc-audience <aud>', 'the audience the CI job asks its ID token for')
    .option('--oidc-claims <pairs>', 'name=value,… the ID token must carry')
    .option('--no-oidc', 'take the ID token rule away: copies join with tokens only')
    .action((name: string, flags: ConfigFlags & BotsUpdateOptions) =>
      withAdmin(flags, (ctx) => botsUpdate(ctx, name, flags, print)),
    );

  withStorageFlags(bots.command('token <name>'))
    .description('print a new single-use join token for the bot')
    .option('--token-ttl <duration>', 'how long the join token works (default 1h, at most 168h)')
    .action((name: string, flags: Flags) =>
      withAdmin(flags, (ctx) => botsToken(ctx, name, flags, print)),
    );

  withStorageFlags(bots.command('ls [name]'))
    .description('list bots, their running instances and unused tokens; with a name, its instances')
    .action((name: string | undefined, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) =>
        name === undefined ? botsList(ctx, print) : botInstancesList(ctx, name, print),
      ),
    );

  withStorageFlags(bots.command('rm <name>'))
    .description('delete a bot: its user, tokens and instances (its certificates stop working)')
    .action((name: string, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) => botsRemove(ctx, name, print)),
    );
}
