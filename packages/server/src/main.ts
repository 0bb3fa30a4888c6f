import { Command, CommanderError, Option } from 'commander';
import { openAdminContext, type AdminContext } from './cli/admin-context.js';
import { usersAdd, usersList, usersReset, usersUnlock } from './cli/users.commands.js';
import { ConfigError, resolveConfig, type ConfigFlags } from './config/config.js';
import { ApiError } from './errors.js';
import { startServer } from './start.js';
import { serverVersion } from './version.js';

/** The flags every command that touches storage shares, so admin commands find a running server's data. */
function withStorageFlags(command: Command): Command {
  return command
    .option('-c, --config <file>', 'YAML config file (see docs/configuration.md)')
    .option(
      '-d, --data-dir <dir>',
      'where state, audit log and TLS files live (default ./postern-data)',
    );
}

export function buildCli(): Command {
  const program = new Command('postern')
    .description('Postern: an access proxy and web console for reaching infrastructure safely')
    .version(serverVersion, '-v, --version')
    .showHelpAfterError()
    .enablePositionalOptions()
    // Usage errors are thrown rather than exiting, so main gives them exit code 2 (bad input).
    .exitOverride();

  withStorageFlags(program.command('start'))
    .description('run the proxy, auth service and console on this host')
    .option(
      '--web-addr <host:port>',
      'HTTPS listen address for the console and API (default 0.0.0.0:3080)',
    )
    .option('--ssh-addr <host:port>', 'SSH listen address (default 0.0.0.0:3023)')
    .option(
      '--public-addr <host:port>',
      'the address users reach this proxy at (default HOSTNAME:web port)',
    )
    .option('--cluster-name <name>', 'the cluster name (default the hostname)')
    .addOption(
      new Option('--insecure-no-tls', 'serve plain HTTP, for use behind a TLS-terminating proxy'),
    )
    .action(async (flags: ConfigFlags) => {
      const config = resolveConfig(flags);
      const server = await startServer(config);
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(signal, () => {
          server.stop(signal).then(
            () => process.exit(0),
            (error: unknown) => {
              console.error(error);
              process.exit(1);
            },
          );
        });
      }
    });

  addUsersCommands(program);
  return program;
}

/** Runs an admin command against the storage the flags name, closing it afterwards. */
async function withAdmin(flags: ConfigFlags, run: (ctx: AdminContext) => Promise<unknown>) {
  const ctx = await openAdminContext(flags);
  try {
    await run(ctx);
  } finally {
    await ctx.close();
  }
}

function addUsersCommands(program: Command): void {
  const users = program.command('users').description('manage local users');
  const print = (line: string) => console.log(line);
  type UserFlags = ConfigFlags & { roles: string; logins?: string; ttl?: string };

  withStorageFlags(users.command('add <name>'))
    .description('create a user and print a one-time invite link')
    .requiredOption('--roles <roles>', 'comma-separated role names, for example editor,access')
    .option('--logins <logins>', 'comma-separated OS logins the user may use')
    .option('--ttl <duration>', 'how long the link works (default 1h, at most 48h)')
    .action((name: string, flags: UserFlags) =>
      withAdmin(flags, (ctx) => usersAdd(ctx, name, flags, print)),
    );

  withStorageFlags(users.command('reset <name>'))
    .description('print a one-time link that sets a new password and second factor')
    .option('--ttl <duration>', 'how long the link works (default 1h, at most 48h)')
    .action((name: string, flags: UserFlags) =>
      withAdmin(flags, (ctx) => usersReset(ctx, name, flags, print)),
    );

  withStorageFlags(users.command('unlock <name>'))
    .description('end a lock after too many failed sign-ins')
    .action((name: string, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) => usersUnlock(ctx, name, print)),
    );

  withStorageFlags(users.command('ls'))
    .description('list users with their roles and lock state')
    .action((flags: ConfigFlags) => withAdmin(flags, (ctx) => usersList(ctx, print)));
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
    // Bad input (flags, config, names, durations) is one line and exit code 2, never a stack.
    if (error instanceof ConfigError || (error instanceof ApiError && error.statusCode < 500)) {
      console.error(`postern: ${(error as Error).message}`);
      process.exit(2);
    }
    throw error;
  }
}
