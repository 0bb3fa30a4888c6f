import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnDaemon } from './daemon.testkit.js';
import { freePort, waitForPort } from './sshd.testkit.js';

const XVNC = '/usr/bin/Xvnc';

export interface StartXvncOptions {
  /** The screen's size (default 640×480). */
  width?: number;
  height?: number;
  /** VNC Authentication with this password; without one the server offers None only. */
  password?: string;
  /** More Xvnc parameters, such as `-Protocol3.3`. */
  args?: string[];
}

export interface RunningXvnc {
  host: string;
  /** Where it takes RFB (VNC) connections. */
  port: number;
  /** Its X display number: X clients use `DISPLAY=:<display>`. */
  display: number;
  /** Its temp dir, where tests may keep files of their own too. */
  dir: string;
  /** What Xvnc logged so far, for failing tests to print. */
  output(): string;
  /** Starts an X client on the display; stop() ends it if it is still running. */
  run(command: string, args: string[], options?: SpawnOptions): ChildProcess;
  /** Runs an X client to its end and resolves with its stdout (rejects if it fails). */
  exec(command: string, args: string[], input?: string): Promise<Buffer>;
  stop(): Promise<void>;
}

/**
 * A real VNC server: TigerVNC's Xvnc (Debian's tigervnc-standalone-server, installed by
 * scripts/ensure-test-deps.sh), an X server whose screen is served over RFB. It runs on a free
 * display number and a free loopback port, from a temp dir (its password file and logs), takes
 * RFB from localhost only and X clients over its Unix socket only.
 */
export async function startXvnc(options: StartXvncOptions = {}): Promise<RunningXvnc> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-xvnc-'));
  try {
    const security: string[] = ['-SecurityTypes', 'None'];
    if (options.password !== undefined) {
      const file = path.join(dir, 'passwd');
      // `vncpasswd -f` (tigervnc-tools) reads the password on stdin, writes the file's bytes.
      await writeFile(file, await run('vncpasswd', ['-f'], `${options.password}\n`));
      security.splice(0, 2, '-SecurityTypes', 'VncAuth', '-PasswordFile', file);
    }
    // Another test (or developer) may hold a display: try a few free-looking numbers.
    for (let attempt = 0; ; attempt++) {
      const display = 100 + Math.floor(Math.random() * 800);
      if (existsSync(`/tmp/.X${display}-lock`) || existsSync(`/tmp/.X11-unix/X${display}`))
        continue;
      const port = await freePort();
      const args = [
        `:${display}`,
        ...['-geometry', `${options.width ?? 640}x${options.height ?? 480}`, '-depth', '24'],
        ...['-rfbport', String(port), '-localhost', '-interface', '127.0.0.1'],
        ...['-nolisten', 'tcp', '-desktop', 'postern-test', ...security],
        // Tests of wrong passwords must not get the loopback address blacklisted.
        ...['-BlacklistThreshold', '1000', ...(options.args ?? [])],
      ];
      const started = await launch(dir, display, port, args);
      if (started) return started;
      if (attempt >= 4) throw new Error('Xvnc found no free display');
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Starts Xvnc; undefined when its display turned out to be taken. */
async function launch(
  dir: string,
  display: number,
  port: number,
  args: string[],
): Promise<RunningXvnc | undefined> {
  const xvnc = spawnDaemon(XVNC, args, dir);
  try {
    await waitForPort(port, xvnc.running, xvnc.output, 'Xvnc');
  } catch (error) {
    if (/already active|Cannot establish any listening sockets/.test(xvnc.output())) {
      return undefined;
    }
    throw error;
  }

  const clients = new Set<ChildProcess>();
  const env = { ...process.env, DISPLAY: `:${display}`, HOME: dir };
  return {
    host: '127.0.0.1',
    port,
    display,
    dir,
    output: xvnc.output,
    run(command, clientArgs, spawnOptions = {}) {
      const client = spawn(command, clientArgs, { stdio: 'ignore', ...spawnOptions, env });
      client.on('error', () => undefined);
      // One that exits before reading what a test writes to it must not fail the run (EPIPE).
      client.stdin?.on('error', () => undefined);
      clients.add(client);
      client.once('exit', () => clients.delete(client));
      return client;
    },
    exec: (command, clientArgs, input) => runChild(command, clientArgs, input, env),
    async stop() {
      for (const client of clients) client.kill('SIGTERM');
      await xvnc.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function run(command: string, args: string[], input?: string): Promise<Buffer> {
  return runChild(command, args, input, process.env);
}

function runChild(
  command: string,
  args: string[],
  input: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      { env, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: 15_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} failed: ${error.message}\n${stderr.toString()}`));
        else resolve(stdout);
      },
    );
    // A client that exits without reading its input must not fail the run with EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}
