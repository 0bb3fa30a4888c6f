import type { Command } from 'commander';
import { print } from '../program.js';
import { requestsClient } from '../requests/requests-client.js';
import { login, type CliDeps, type LoginFlags } from './login-flow.js';
import { botStart, type BotStartFlags } from './bot-start.js';
import { askCodeOn } from './session-mfa.js';
import { ProxyUnreachableError } from './proxy-client.js';
import { clusters } from './clusters-command.js';
import { logout, ls, status } from './session-commands.js';
import {
  join,
  scp,
  ssh,
  systemOpenSsh,
  systemPipedSsh,
  type OpenSshRunner,
  type SshRunners,
} from './ssh-commands.js';
import type { PipedSshRunner } from './ssh-fanout.js';

export interface LoginCommandDeps extends Partial<CliDeps> {
  /** The system's ssh and scp, unless a test gives its own. */
  runOpenSsh?: OpenSshRunner;
  /** ssh for each node of a label selector, its output piped; and where that output goes. */
  runPipedSsh?: PipedSshRunner;
  write?: SshRunners['write'];
}

/**
 * `postern login | ls | ssh | scp | status | logout`: a user's commands (docs/cli-login.md), unlike
 * the admin commands they talk to a proxy over HTTPS and never open storage.
 */
export function addLoginCommands(program: Command, overrides: LoginCommandDeps = {}): void {
  const deps: CliDeps = {
    env: overrides.env ?? process.env,
    io: overrides.io ?? { input: process.stdin, output: process.stderr },
    print: overrides.print ?? print,
    ...(overrides.pollIntervalMs ? { pollIntervalMs: overrides.pollIntervalMs } : {}),
  };
  const runOpenSsh = overrides.runOpenSsh ?? systemOpenSsh;
  const sshRunners: SshRunners = {
    run: runOpenSsh,
    runPiped: overrides.runPipedSsh ?? systemPipedSsh,
    write: overrides.write ?? {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
    },
    askCode: askCodeOn(deps.io),
  };

  program
    .command('login')
    .description('sign in to a proxy and get an SSH certificate for ssh through it')
    .requiredOption('--proxy <host:port>', "the proxy's web address, e.g. proxy.example.com:3080")
    .option('--user <name>', 'the Postern user (default: your OS user name)')
    .option(
      '--ttl <duration>',
      "how long the certificate lives (at most the roles' max_session_ttl)",
    )
    .option('--headless', 'approve the login in a browser elsewhere instead of typing a password')
    .option(
      '--auth <name>',
      'sign in through the auth connector NAME (single sign-on, in a browser)',
    )
    .option('--no-browser', 'with --auth: print the sign-in URL, do not open a browser')
    .option('--insecure', "do not check the proxy's TLS certificate (a self-signed proxy)")
    .option('--no-ssh-config', 'do not add an Include line to ~/.ssh/config')
    .option('--request-id <id>', 'assume this approved access request (postern request ls)')
    .action((flags: LoginFlags & { requestId?: string }) =>
      oneLine(async () => {
        await login(flags, deps);
        if (!flags.requestId) return;
        const expires = await (await requestsClient(deps.env)).assume([flags.requestId]);
        deps.print(`Assumed access request ${flags.requestId}; valid until ${expires}.`);
      }),
    );

  program
    .command('status')
    .description('show the current login: user, cluster, roles, logins, expiry')
    .action(() => oneLine(() => status(deps.env, deps.print)));

  program
    .command('clusters')
    .description('the cluster you are signed in to and the trusted leaf clusters it reaches')
    .action(() => oneLine(() => clusters(deps.env, deps.print)));

  program
    .command('ls')
    .description(
      'list the nodes you may reach; name=value[,name=value] keeps those with the labels',
    )
    .argument('[labels]', 'name=value[,name=value]: only nodes with all these labels')
    .option('--search <words>', 'only nodes whose name, address or labels hold all the words')
    .option('--format <format>', 'text (a table, the default) or json')
    .option('--cluster <leaf>', "a trusted leaf cluster's servers, reached through this proxy")
    .action(
      (labels: string | undefined, flags: { search?: string; format?: string; cluster?: string }) =>
        oneLine(() => ls(deps.env, deps.print, { ...flags, ...(labels ? { labels } : {}) })),
    );

  program
    .command('ssh')
    .description(
      "ssh to [login@]node through the proxy, with the login from postern login; ssh's own options (-L, -R, -D, -N, -t, -A…) as given; [login@]name=value[,name=value] COMMAND runs it on every node with those labels; --cluster LEAF reaches a trusted leaf's nodes",
    )
    .argument('<args...>', "ssh's options, then [login@]node and a command")
    .allowUnknownOption()
    .helpOption(false)
    .action((args: string[]) =>
      oneLine(async () => {
        process.exitCode = await ssh(deps.env, args, sshRunners);
      }),
    );

  program
    .command('scp')
    .description('copy files to and from [login@]node:path through the proxy, with the system scp')
    .argument('<args...>', "scp's options, then sources and a target")
    .allowUnknownOption()
    .helpOption(false)
    .action((args: string[]) =>
      oneLine(async () => {
        process.exitCode = await scp(deps.env, args, runOpenSsh, sshRunners.askCode);
      }),
    );

  program
    .command('join <sessionId>')
    .description('join a live session (Active Sessions lists them) through the SSH proxy')
    .option('--mode <mode>', 'observer (default for others), moderator or peer')
    .option('--cluster <leaf>', "a trusted leaf cluster's session, through this proxy")
    .action((sessionId: string, flags: { mode?: string; cluster?: string }) =>
      oneLine(async () => {
        process.exitCode = await join(
          deps.env,
          sessionId,
          flags.mode,
          runOpenSsh,
          sshRunners.askCode,
          flags.cluster,
        );
      }),
    );

  program
    .command('bot')
    .description('run as a machine identity (docs/bots.md)')
    .command('start')
    .description(
      'join with a bot token (or renew the identity in --destination) and keep its certificate fresh',
    )
    .requiredOption(
      '--destination <dir>',
      'where the identity lives: ssh -F DIR/ssh_config uses it',
    )
    .option('--proxy <host:port>', "the proxy's web address (first join only)")
    .option('--token <token>', 'the join token postern bots add printed (first join only)')
    .option('--bot <name>', 'with an ID token: the bot to join as')
    .option('--oidc-token-env <var>', "the environment variable holding the CI job's ID token")
    .option('--oidc-token-file <file>', "the file holding the CI job's ID token")
    .option('--ttl <duration>', 'how long each certificate lives (default 1h)')
    .option('--oneshot', 'get or renew the certificate once, then exit')
    .option('--insecure', "do not check the proxy's TLS certificate (a self-signed proxy)")
    .action((flags: BotStartFlags) => oneLine(() => botStart(flags, deps)));

  program
    .command('logout')
    .description("remove the current login's key, certificate and profile")
    .action(() => oneLine(() => logout(deps.env, deps.print)));
}

/**
 * Refusals (bad flags, wrong password, expired login) go to main: one line, exit code 2. A proxy
 * that cannot be reached is one line and exit code 1; neither prints a stack.
 */
async function oneLine(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof ProxyUnreachableError)) throw error;
    console.error(`postern: ${error.message}`);
    process.exitCode = 1;
  }
}
