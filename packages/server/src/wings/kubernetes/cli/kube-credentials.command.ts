import type { Command } from 'commander';
import { askCodeOn } from '../../../cli/login/session-mfa.js';
import { kubeCredentials, kubectlIsInteractive } from './kube-credentials.js';

/**
 * `postern kube credentials NAME --proxy HOST`: kubectl runs it for each command, so the binary
 * starts it without loading the rest of the CLI (entry.ts).
 */
export function addKubeCredentialsCommand(kube: Command): void {
  kube
    .command('credentials <name>')
    .description(
      "kubectl's credential plugin for a context whose roles ask for an MFA check for each session",
    )
    .requiredOption('--proxy <host>', 'the proxy the context is for')
    .action(async (name: string, flags: { proxy: string }) => {
      // stdout is kubectl's: the ExecCredential alone. The question goes to stderr.
      const credential = await kubeCredentials(process.env, name, flags.proxy, {
        askCode: askCodeOn(),
        interactive: kubectlIsInteractive(process.env, process.stdin.isTTY === true),
      });
      process.stdout.write(`${credential}\n`);
    });
}
