import { Option, type Command } from 'commander';
import type { ConfigFlags } from '../config/config.js';
import {
  alertsCreate,
  alertsList,
  alertsRemove,
  type AlertsCreateOptions,
} from './alerts.commands.js';
import { caExport, caTypes } from './ca.commands.js';
import { locksAdd, targetFlags, type LocksAddOptions } from './locks.commands.js';
import { creatable, getWords, joinOr, removableRefs } from './kinds.js';
import { print, withAdmin, withStorageFlags } from './program.js';
import { createFromFile, getResources, removeResource, type Format } from './resources.commands.js';
import {
  usersAdd,
  usersList,
  usersRemove,
  usersReset,
  usersUnlock,
  usersUpdate,
  usersDevices,
} from './users.commands.js';

/** `postern users add|reset|unlock|ls|update|devices|rm`. */
export function addUsersCommands(program: Command): void {
  const users = program.command('users').description('manage local users');
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

  type UpdateFlags = ConfigFlags & { setRoles?: string; setLogins?: string };
  withStorageFlags(users.command('update <name>'))
    .description("replace a user's roles or logins")
    .option('--set-roles <roles>', 'comma-separated role names')
    .option('--set-logins <logins>', 'comma-separated OS logins (empty to clear)')
    .action((name: string, flags: UpdateFlags) =>
      withAdmin(flags, (ctx) => usersUpdate(ctx, name, flags, print)),
    );

  withStorageFlags(users.command('devices <name>'))
    .description("list a user's MFA devices with their ids (what --mfa-device locks)")
    .action((name: string, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) => usersDevices(ctx, name, print)),
    );

  withStorageFlags(users.command('rm <name>'))
    .description('delete a user, with their credentials, sessions and links')
    .action((name: string, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) => usersRemove(ctx, name, print)),
    );
}

/** `postern get`, `postern create -f`, `postern rm`. */
export function addResourceCommands(program: Command): void {
  type GetFlags = ConfigFlags & { format?: Format };
  withStorageFlags(program.command('get <kind> [name]'))
    .addOption(
      new Option('--format <format>', 'yaml, json or text').choices(['yaml', 'json', 'text']),
    )
    .action((kind: string, name: string | undefined, flags: GetFlags) =>
      withAdmin(flags, (ctx) => getResources(ctx, kind, name, flags, print)),
    );

  type CreateFlags = ConfigFlags & { file: string; force?: boolean };
  withStorageFlags(program.command('create'))
    .requiredOption('-f, --file <file>', 'the YAML file')
    .option('--force', 'overwrite a resource that exists already (locks are always new)')
    .action((flags: CreateFlags) =>
      withAdmin(flags, (ctx) => createFromFile(ctx, flags.file, flags, print)),
    );

  withStorageFlags(program.command('rm <ref>')).action((ref: string, flags: ConfigFlags) =>
    withAdmin(flags, (ctx) => removeResource(ctx, ref, print)),
  );
}

/**
 * The descriptions of get, create and rm, which name the kinds: set once every command is added,
 * since each wing adds its kinds (app, db, …) with its commands.
 */
export function describeResourceCommands(program: Command): void {
  const named = (name: string) => program.commands.find((command) => command.name() === name);
  named('get')?.description(
    `show resources, as YAML documents or tables (--format); kind: ${getWords()}`,
  );
  const documentKinds = creatable().map((kind) => kind.kind);
  named('create')?.description(
    `create ${joinOr(documentKinds)} from a YAML file (documents split by ---)`,
  );
  named('rm')?.description(`delete a resource: ${removableRefs()}`);
}

/** `postern login_rule test`: what the login rules make of given traits (docs/sso.md). */
export function addLoginRuleCommands(program: Command): void {
  const rules = program.command('login_rule').description('try login rules (docs/sso.md)');
  type TestFlags = ConfigFlags & {
    resourceFile: string[];
    loadFromCluster?: boolean;
    format: 'yaml' | 'json';
  };
  withStorageFlags(rules.command('test <traits-file>'))
    .description(
      "the traits the rules make of a provider's (a YAML or JSON map; - reads standard input)",
    )
    .option('-f, --resource-file <file...>', 'login rules to apply, as create -f reads them', [])
    .option('--load-from-cluster', 'also apply the rules stored in the cluster')
    .addOption(
      new Option('--format <format>', 'yaml or json').choices(['yaml', 'json']).default('yaml'),
    )
    .action(async (traitsFile: string, flags: TestFlags) => {
      const { loginRulesTest } =
        await import('../access-control/login-rules/login-rules-test.command.js');
      const options = { traitsFile, resourceFiles: flags.resourceFile, format: flags.format };
      if (!flags.loadFromCluster) return loginRulesTest(options, print);
      return withAdmin(flags, (ctx) => loginRulesTest({ ...options, fromCluster: ctx }, print));
    });
}

/** `postern locks add`. */
export function addLocksCommands(program: Command): void {
  const locks = program.command('locks').description('manage session and identity locks');
  const add = withStorageFlags(locks.command('add'))
    .description(
      'lock a user, role, login, node, desktop, MFA device, access request or bot instance',
    )
    .option('--message <text>', 'what the locked user is told')
    .option('--ttl <duration>', 'lift the lock after this long, for example 1h')
    .option('--expires <time>', 'lift the lock at this RFC 3339 time');
  for (const flag of Object.values(targetFlags)) {
    add.option(`--${flag} <name>`, `lock this ${flag.replace(/-/g, ' ')}`);
  }
  add.action((flags: ConfigFlags & LocksAddOptions) =>
    withAdmin(flags, (ctx) => locksAdd(ctx, flags, print)),
  );
}

/** `postern alerts create|ls|rm`: banners for everyone in the console. */
export function addAlertsCommands(program: Command): void {
  const alerts = program
    .command('alerts')
    .description('post messages every console user sees as a banner (maintenance, policy)');
  withStorageFlags(alerts.command('create <message>'))
    .description('post an alert')
    .addOption(
      new Option('--severity <severity>', 'how the banner shows it')
        .choices(['low', 'medium', 'high'])
        .default('low'),
    )
    .option('--ttl <duration>', 'take it down after this long, for example 8h')
    .option('--link <url>', 'an http(s) link shown beside the message')
    .action((message: string, flags: ConfigFlags & AlertsCreateOptions) =>
      withAdmin(flags, (ctx) => alertsCreate(ctx, message, flags, print)),
    );
  withStorageFlags(alerts.command('ls'))
    .description('list the alerts in force')
    .action((flags: ConfigFlags) => withAdmin(flags, (ctx) => alertsList(ctx, print)));
  withStorageFlags(alerts.command('rm <id>'))
    .description('take an alert down')
    .action((id: string, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) => alertsRemove(ctx, id, print)),
    );
}

export function addCaCommands(program: Command): void {
  const ca = program.command('ca').description("the cluster's SSH certificate authorities");
  withStorageFlags(ca.command('export'))
    .description(
      'print the user CA line for sshd TrustedUserCAKeys, or the host CA known_hosts line',
    )
    .addOption(
      new Option('--type <type>', 'which CA: user or host').choices(caTypes).makeOptionMandatory(),
    )
    .action((flags: ConfigFlags & { type: string }) =>
      withAdmin(flags, (ctx) => caExport(ctx, flags, print)),
    );
}
