import { Command, Option } from 'commander';
import { addLoginCommands } from './cli/login/login.commands.js';
import { addBotsCommands } from './cli/bots.commands.js';
import { addRecordingsCommands } from './cli/recordings/recordings.commands.js';
import { addAuditCommands } from './cli/audit/audit.commands.js';
import { addSessionsCommands } from './cli/sessions/sessions.commands.js';
import { addRequestCommands } from './cli/requests/requests.commands.js';
import { withStorageFlags } from './cli/program.js';
import {
  addCaCommands,
  addAlertsCommands,
  addLocksCommands,
  addLoginRuleCommands,
  describeResourceCommands,
  addResourceCommands,
  addUsersCommands,
} from './cli/register.js';
import { addVerifyCommands } from './cli/verify.commands.js';
import { resolveConfig, type ConfigFlags } from './config/config.js';
import { runProgram } from './cli/run-program.js';
import { tuneHeapForRelaying } from './heap-tuning.js';
import { serverVersion } from './version.js';
import { wingCommands } from './wings/cli.js';

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
      '--postgres-addr <host:port>',
      'native PostgreSQL listener for postern db login (default: off)',
    )
    .option('--mysql-addr <host:port>', 'native MySQL listener for postern db login (default: off)')
    .option(
      '--kube-addr <host:port>',
      'a port of its own for the Kubernetes listener, which the web port also serves over TLS (default: off)',
    )
    .option(
      '--public-addr <host:port>',
      'the address users reach this proxy at, used in the links it prints (default localhost:web port, or the --web-addr host when it names one)',
    )
    .option(
      '--metrics-addr <host:port>',
      'a listener of its own serving Prometheus metrics at /metrics (default: off)',
    )
    .addOption(
      new Option(
        '--log-format <format>',
        'auto: readable lines on a terminal, JSON lines otherwise; json; text',
      ).choices(['auto', 'json', 'text']),
    )
    .option('--cluster-name <name>', 'the cluster name (default the hostname)')
    .addOption(
      new Option('--insecure-no-tls', 'serve plain HTTP, for use behind a TLS-terminating proxy'),
    )
    .action(async (flags: ConfigFlags) => {
      const config = resolveConfig(flags);
      tuneHeapForRelaying();
      // Loaded here: the server's modules are most of the CLI's start-up time, and only start needs them.
      const { startServer } = await import('./start.js');
      const server = await startServer(config);
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(signal, () => {
          // Forced: even closing storage may hang on a stuck disk; the grace is a promise.
          const bound = config.shutdownDrainMs + config.shutdownGraceMs + 5_000;
          setTimeout(() => process.exit(1), bound).unref();
          server.stop(signal).then(
            (clean) => process.exit(clean ? 0 : 1),
            (error: unknown) => {
              console.error(error);
              process.exit(1);
            },
          );
        });
      }
    });

  addUsersCommands(program);
  addBotsCommands(program);
  addResourceCommands(program);
  addLocksCommands(program);
  addLoginRuleCommands(program);
  addAlertsCommands(program);
  addCaCommands(program);
  for (const addCommands of Object.values(wingCommands)) addCommands(program);
  addLoginCommands(program);
  addRequestCommands(program);
  addRecordingsCommands(program);
  addAuditCommands(program);
  addSessionsCommands(program);
  addVerifyCommands(program);
  describeResourceCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await runProgram(buildCli(), argv);
}
