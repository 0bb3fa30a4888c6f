import { Command } from 'commander';
import { runProgram } from './cli/run-program.js';

/**
 * The binary's entry. kubectl runs `postern kube credentials` before each of its commands, so
 * that one loads only its own modules (about a third of the whole CLI's start-up time); every
 * other command loads the whole CLI (main.ts).
 */
export async function run(argv: string[]): Promise<void> {
  if (argv[2] === 'kube' && argv[3] === 'credentials') {
    const { addKubeCredentialsCommand } =
      await import('./wings/kubernetes/cli/kube-credentials.command.js');
    const program = new Command('postern').exitOverride();
    addKubeCredentialsCommand(program.command('kube').exitOverride());
    return runProgram(program, argv);
  }
  const { main } = await import('./main.js');
  return main(argv);
}
