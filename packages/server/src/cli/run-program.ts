import { CommanderError, type Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { ApiError } from '../errors.js';

/**
 * Runs a command line, with the binary's exit codes: 2 and one line on stderr for bad input
 * (flags, config, names, a refusal from the proxy), never a stack; anything else is thrown.
 */
export async function runProgram(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
    if (error instanceof ConfigError || (error instanceof ApiError && error.statusCode < 500)) {
      console.error(`postern: ${(error as Error).message}`);
      process.exit(2);
    }
    throw error;
  }
}
