import { Option, type Command } from 'commander';
import type { ConfigFlags } from '../config/config.js';
import { caExport, caTypes } from './ca.commands.js';
import { locksAdd, targetFlags, type LocksAddOptions } from './locks.commands.js';
import { getWords, removableRefs } from './kinds.js';
import { nodesAdd, nodesList, nodesRemove } from './nodes.commands.js';
import { print, withAdmin, withStorageFlags } from './program.js';
import { createFromFile, getResources, removeResource, type Format } from './resources.commands.js';
import { tokensAdd, tokensList, tokensRemove } from './tokens.commands.js';
import {
  usersAdd,
  usersList,
  usersRemove,
  usersReset,
  usersUnlock,
  usersUpdate,
} from './users.commands.js';

/** `postern users add|reset|unlock|ls|update|rm`. */
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
    .description(`show roles or connectors (YAML), users or locks (tables); kind: ${getWords()}`)
    .addOption(
      new Option('--format <format>', 'yaml, json or text').choices(['yaml', 'json', 'text']),
    )
    .action((kind: string, name: string | undefined, flags: GetFlags) =>
      withAdmin(flags, (ctx) => getResources(ctx, kind, name, flags, print)),
    );

  type CreateFlags = ConfigFlags & { file: string; force?: boolean };
  withStorageFlags(program.command('create'))
    .description(
      'create roles, users, locks and connectors from a YAML file (documents split by ---)',
    )
    .requiredOption('-f, --file <file>', 'the YAML file')
    .option('--force', 'overwrite existing roles, users and connectors')
    .action((flags: CreateFlags) =>
      withAdmin(flags, (ctx) => createFromFile(ctx, flags.file, flags, print)),
    );

  withStorageFlags(program.command('rm <ref>'))
    .description(`delete a resource: ${removableRefs()}`)
    .action((ref: string, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) => removeResource(ctx, ref, print)),
    );
}

/** `postern locks add`. */
export function addLocksCommands(program: Command): void {
  const locks = program.command('locks').description('manage session and identity locks');
  const add = withStorageFlags(locks.command('add'))
    .description('lock a user, role, login or node')
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

/** `postern tokens add|ls|rm`: join tokens for agents and agentless hosts. */
export function addTokensCommands(program: Command): void {
  const tokens = program.command('tokens').description('manage join tokens');
  type AddFlags = ConfigFlags & { type: string; ttl?: string; labels?: string };
  withStorageFlags(tokens.command('add'))
    .description('create a join token and print how to join a host with it')
    .requiredOption('--type <type>', 'what joins: node (also app, db, kube, windowsdesktop)')
    .option('--ttl <duration>', 'how long the token works (default 30m)')
    .option('--labels <labels>', 'labels for the hosts that join, for example env=prod,team=web')
    .action((flags: AddFlags) => withAdmin(flags, (ctx) => tokensAdd(ctx, flags, print)));

  withStorageFlags(tokens.command('ls'))
    .description('list live join tokens (masked), their roles, expiry and labels')
    .action((flags: ConfigFlags) => withAdmin(flags, (ctx) => tokensList(ctx, print)));

  withStorageFlags(tokens.command('rm <token-or-id>'))
    .description('delete a join token, named by itself or by its id from tokens ls')
    .action((ref: string, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) => tokensRemove(ctx, ref, print)),
    );
}

/** `postern nodes add|ls|rm`: the servers of the cluster. */
export function addNodesCommands(program: Command): void {
  const nodes = program.command('nodes').description('manage servers');
  type AddFlags = ConfigFlags & { name: string; addr: string; labels?: string };
  withStorageFlags(nodes.command('add'))
    .description('register an agentless OpenSSH host (its host key is pinned on first use)')
    .requiredOption('--name <hostname>', 'the name users see and connect by')
    .requiredOption('--addr <host:port>', 'where the proxy reaches its sshd, for example db-1:22')
    .option('--labels <labels>', 'labels, for example env=prod,team=web')
    .action((flags: AddFlags) => withAdmin(flags, (ctx) => nodesAdd(ctx, flags, print)));

  withStorageFlags(nodes.command('ls'))
    .description('list servers with their kind, status and labels')
    .action((flags: ConfigFlags) => withAdmin(flags, (ctx) => nodesList(ctx, print)));

  withStorageFlags(nodes.command('rm <name-or-id>'))
    .description('remove a server (an agent that still runs registers again)')
    .action((ref: string, flags: ConfigFlags) =>
      withAdmin(flags, (ctx) => nodesRemove(ctx, ref, print)),
    );
}

/** `postern ca export --type user|host`. */
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
