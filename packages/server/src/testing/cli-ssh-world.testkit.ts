import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Command } from 'commander';
import { hostActor } from '../access-control/access/actor.js';
import { addLoginCommands } from '../cli/login/login.commands.js';
import type { OpenSshRunner, SshRunners } from '../cli/login/ssh-commands.js';
import { createTestApp, type TestApp } from './app-harness.testkit.js';
import { inviteUser, type TestUser } from './identity.testkit.js';
import { createOpsRole } from './ssh-login.testkit.js';
import { startTestSshProxy } from './ssh-proxy.testkit.js';
import { startSshd } from './sshd.testkit.js';
import { totpCode } from './totp.testkit.js';

export interface PosternRunOptions {
  /** Answers to the prompts, in order (password, codes). */
  answers?: string[];
  runOpenSsh?: OpenSshRunner;
  runPipedSsh?: SshRunners['runPiped'];
  write?: SshRunners['write'];
}

export type StockResult = { code: number; stdout: string; stderr: string };

/** A stock ssh command still running: what it printed so far, and its exit code once it ends. */
export interface LiveSsh {
  readonly stdout: string;
  readonly stderr: string;
  exited: Promise<number | null>;
  kill(): void;
}

/**
 * What a new user has after the README: a listening Postern with its SSH proxy, a real sshd
 * added as `web-1` that trusts the cluster's user CA, and alice (role `ops`, an authenticator
 * app) with a home directory for `postern login` and the stock OpenSSH client.
 */
export async function startCliSshWorld() {
  const app: TestApp = await createTestApp();
  app.config.publicAddr = { host: '127.0.0.1', port: 0 };
  const webUrl = (await app.listenOnLoopback()).baseUrl;
  const sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  await app.services.inventory.addOpenSsh(
    { name: 'web-1', addr: `127.0.0.1:${sshd.port}`, labels: {} },
    hostActor('test'),
  );
  // Certificates are issued on the app's clock, which `login` moves a step for each code: the
  // proxy judges them on the same clock.
  const proxy = await startTestSshProxy(app, { now: () => app.clock.now() });
  await createOpsRole(app);
  const alice: TestUser = await inviteUser(app, 'alice', { roles: ['ops'] });
  const home = await mkdtemp(path.join(tmpdir(), 'postern-home-'));

  /** Runs `postern <args>` as main does, with these answers to its prompts; returns its lines. */
  async function postern(args: string[], options: PosternRunOptions = {}): Promise<string[]> {
    const lines: string[] = [];
    const program = new Command('postern').enablePositionalOptions().exitOverride();
    const answers = (options.answers ?? []).map((answer) => `${answer}\n`);
    addLoginCommands(program, {
      env: { POSTERN_HOME: path.join(home, '.postern'), HOME: home, USER: 'alice' },
      io: { input: Readable.from(answers), output: new PassThrough() },
      print: (line) => lines.push(line),
      pollIntervalMs: 20,
      runOpenSsh: options.runOpenSsh ?? (async () => 0),
      ...(options.runPipedSsh ? { runPipedSsh: options.runPipedSsh } : {}),
      ...(options.write ? { write: options.write } : {}),
    });
    await program.parseAsync(['node', 'postern', ...args]);
    return lines;
  }

  return {
    app,
    sshd,
    proxy,
    alice,
    home,
    webUrl,
    postern,
    /** `postern login`, answering the password and the next step's code. */
    login(): Promise<string[]> {
      app.clock.advance(30_000);
      const code = totpCode(alice.totpSecret!, app.clock.now());
      return postern(['login', '--proxy', webUrl], { answers: [alice.password!, code] });
    },
    /**
     * The stock client with the user's own ~/.ssh/config (OpenSSH finds the home directory from
     * the password database, not $HOME, so this names the file; the Include inside is login's).
     */
    stock(
      program: 'ssh' | 'scp' | 'sftp',
      args: string[],
      input = '',
      /** Another ssh_config: a bot's, say (docs/bots.md). */
      config = path.join(home, '.ssh', 'config'),
    ) {
      return new Promise<StockResult>((resolve) => {
        const child = execFile(
          program,
          ['-F', config, '-o', 'BatchMode=yes', ...args],
          { timeout: 30_000, encoding: 'utf8' },
          (error, stdout, stderr) =>
            resolve({
              code: error ? Number((error as { code?: number }).code ?? 1) : 0,
              stdout,
              stderr,
            }),
        );
        child.stdin?.end(input);
      });
    },
    /**
     * The stock client running `command` on web-1 and staying (a lock test ends it): its output
     * so far, and its exit. `kill` stops it if it is still running.
     */
    live(command: string): LiveSsh {
      const config = path.join(home, '.ssh', 'config');
      const ssh = spawn('ssh', ['-F', config, '-o', 'BatchMode=yes', 'root@web-1', command]);
      const live = {
        stdout: '',
        stderr: '',
        exited: new Promise<number | null>((resolve) => ssh.once('exit', resolve)),
        kill: () => ssh.kill(),
      };
      ssh.stdout.setEncoding('utf8').on('data', (chunk: string) => (live.stdout += chunk));
      ssh.stderr.setEncoding('utf8').on('data', (chunk: string) => (live.stderr += chunk));
      return live;
    },
    async stop() {
      await proxy.stop();
      await sshd.stop();
      await app.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

export type CliSshWorld = Awaited<ReturnType<typeof startCliSshWorld>>;
