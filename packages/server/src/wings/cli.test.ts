import { Command } from 'commander';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { wingCommands } from './cli.js';
import { wings } from './index.js';

// The CLI's list of the wings' commands stands apart from the registry (so that the CLI starts
// without loading the wings' server modules): the two must not drift.

const hasCommands = (name: string) => {
  const dir = fileURLToPath(new URL(`./${name}/cli/`, import.meta.url));
  return existsSync(dir) && readdirSync(dir).some((file) => /\.commands?\.ts$/.test(file));
};

describe('wings/cli.ts', () => {
  it("names every registered wing that has commands, in the registry's order, and nothing else", () => {
    const registered = wings.map((wing) => wing.name);
    expect(registered.filter(hasCommands)).toEqual(Object.keys(wingCommands));
  });

  it("adds each wing's commands to the program", () => {
    const program = new Command('postern');
    for (const add of Object.values(wingCommands)) add(program);
    // The desktops wing adds its kind to get/create/rm, not a command of its own.
    expect(program.commands.map((command) => command.name())).toEqual([
      'tokens',
      'nodes',
      'agent',
      'proxy',
      'apps',
      'db',
      'kube',
    ]);
  });
});
