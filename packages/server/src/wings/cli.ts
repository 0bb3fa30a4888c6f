import type { Command } from 'commander';
import { addAppsCommands } from './apps/cli/apps.commands.js';
import { addDatabaseCommands } from './databases/cli/databases.commands.js';
import { addDesktopCommands } from './desktops/cli/desktops.commands.js';
import { addKubeCommands } from './kubernetes/cli/kube.commands.js';
import { addServersCommands } from './servers/cli/commands.js';

/**
 * Each wing's `postern …` commands, by the wing's name, in the registry's order. Apart from the
 * registry (wings/index.ts) because importing that loads every wing's server modules, which
 * took 0.3 s of the CLI's 1.1 s start. A wing with commands adds its line here too; cli.test.ts
 * checks this names the registry's wings that have a cli/ folder, and no other.
 */
export const wingCommands: Readonly<Record<string, (program: Command) => void>> = {
  servers: addServersCommands,
  apps: addAppsCommands,
  databases: addDatabaseCommands,
  kubernetes: addKubeCommands,
  desktops: addDesktopCommands,
};
