import type { Command } from 'commander';
import { print, withAdmin, withStorageFlags } from '../../../cli/program.js';
import type { ConfigFlags } from '../../../config/config.js';
import { addAgentCommand } from './agent.commands.js';
import { nodesAdd, nodesList, nodesRemove } from './nodes.commands.js';
import { tokensAdd, tokensList, tokensRemove } from './tokens.commands.js';

/** The servers wing's commands: `postern tokens`, `postern nodes` and `postern agent`. */
export function addServersCommands(program: Command): void {
  addTokensCommands(program);
  addNodesCommands(program);
  addAgentCommand(program);
}

/** `postern tokens add|ls|rm`: join tokens for agents and agentless hosts. */
function addTokensCommands(program: Command): void {
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
function addNodesCommands(program: Command): void {
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
