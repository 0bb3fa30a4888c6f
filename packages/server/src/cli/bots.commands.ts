import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import type { ConfigFlags } from '../config/config.js';
import { parseDuration } from '../config/duration.js';
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

/** `postern bots add NAME --roles a,b`: the bot's user, and a join token for its first copy. */
export async function botsAdd(
  ctx: AdminContext,
  name: string,
  options: { roles: string; logins?: string; tokenTtl?: string },
  print: Print,
): Promise<string> {
  const { bot, token } = await (
    await botsOf(ctx)
  ).create(
    {
      name,
      roles: list(options.roles),
      logins: list(options.logins),
      ...(options.tokenTtl ? { tokenTtlMs: tokenTtl(options.tokenTtl) } : {}),
    },
    cliActor(),
  );
  print(
    `Bot ${bot.name} has been created; it acts as user ${bot.user} with roles ${bot.roles.join(', ')}.`,
  );
  printJoin(ctx, token, print);
  return token.token;
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
      String(bot.instances.length),
      last ?? '-',
      String(bot.tokens.length),
    ];
  });
  printTable(['Bot', 'User', 'Roles', 'Instances', 'Last renewal', 'Unused tokens'], rows, print);
}

export async function botsRemove(ctx: AdminContext, name: string, print: Print): Promise<void> {
  await (await botsOf(ctx)).remove(name, cliActor());
  print(`Bot ${name} has been deleted: its user, tokens and instances are gone.`);
}

/** `postern bots add|token|ls|rm`: machine identities (docs/bots.md). */
export function addBotsCommands(program: Command): void {
  const bots = program.command('bots').description('manage machine identities (bots)');
  type Flags = ConfigFlags & { roles: string; logins?: string; tokenTtl?: string };

  withStorageFlags(bots.command('add <name>'))
    .description('create a bot and print a single-use join token for postern bot start')
    .requiredOption('--roles <roles>', 'comma-separated role names the bot acts with')
    .option('--logins <logins>', 'comma-separated OS logins the bot may use')
    .option('--token-ttl <duration>', 'how long the join token works (default 1h, at most 168h)')
    .action((name: string, flags: Flags) =>
      withAdmin(flags, (ctx) => botsAdd(ctx, name, flags, print)),
    );

  withStorageFlags(bots.command('token <name>'))
    .description('print a new single-use join token for the bot')
    .option('--token-ttl <duration>', 'how long the join token works (default 1h, at most 168h)')
    .action((name: string, flags: Flags) =>
      withAdmin(flags, (ctx) => botsToken(ctx, name, flags, print)),
    );

  withStorageFlags(bots.command('ls'))
    .description('list bots, their running instances and unused tokens')
    .action((flags: ConfigFlags) => withAdmin(flags, (ctx) => botsList(ctx, print)));

  withStorageFlags(bots.command('rm <name>'))
    .description('delete a bot: its user, tokens and instances (its certificates stop working)')
    .action((name: string, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) => botsRemove(ctx, name, print)),
    );
}
