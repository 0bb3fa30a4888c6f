import type { Command } from 'commander';
import type { ConfigFlags } from '../config/config.js';
import type { AdminContext } from './admin-context.js';

/** The flags every command that touches storage shares, so admin commands find a running server's data. */
export function withStorageFlags(command: Command): Command {
  return command
    .option('-c, --config <file>', 'YAML config file (see docs/configuration.md)')
    .option(
      '-d, --data-dir <dir>',
      'where state, audit log and TLS files live (default ./postern-data)',
    );
}

/** Runs an admin command against the storage the flags name, closing it afterwards. */
export async function withAdmin(flags: ConfigFlags, run: (ctx: AdminContext) => Promise<unknown>) {
  // Loaded here: storage and identity are much of the CLI's start-up time, and a user's commands
  // (login, ssh, kube …) never open them.
  const { openAdminContext } = await import('./admin-context.js');
  const ctx = await openAdminContext(flags);
  try {
    await run(ctx);
  } finally {
    await ctx.close();
  }
}

export const print = (line: string) => console.log(line);

/**
 * A parent command several wings add to (`postern proxy app`, later `proxy db`, `proxy kube`):
 * the one already there, or a new one.
 */
export function commandGroup(program: Command, name: string, description: string): Command {
  return (
    program.commands.find((command) => command.name() === name) ??
    program.command(name).description(description)
  );
}
