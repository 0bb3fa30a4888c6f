import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
// The server's own PTY library (a dependency of packages/server): a real terminal, as a newcomer's.
import { spawn, type IPty } from 'node-pty';
import { startArgs, withFreeNodePort } from './postern-process.js';

export interface PosternInTerminal {
  /** The console's address, from the "serving the console at" entry. */
  consoleUrl: string;
  dataDir: string;
  /** Everything printed so far, line endings as `\n`. */
  output(): string;
  stop(): Promise<void>;
}

export interface TerminalStartOptions {
  dataDir?: string;
  configYaml?: string;
  args?: string[];
  /** Run as another OS user (the test runs as root); its data dir must be its own. */
  uid?: number;
  gid?: number;
  env?: Record<string, string>;
}

/**
 * `postern start` (the built binary) on a pseudo-terminal, so `process.stdout.isTTY` is true as
 * when a person runs it. Resolves once the console address is printed.
 */
export async function startPosternInTerminal(
  options: TerminalStartOptions = {},
): Promise<PosternInTerminal> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'postern-tty-')));
  const configFile = path.join(tmpdir(), `postern-tty-${process.pid}-${Date.now()}.yaml`);
  await writeFile(configFile, withFreeNodePort(options.configYaml), { mode: 0o644 });
  const args = startArgs(dataDir, ['--config', configFile, ...(options.args ?? [])]);
  const pty: IPty = spawn(process.execPath, args, {
    name: 'xterm-256color',
    cols: 200,
    rows: 50,
    cwd: tmpdir(),
    env: { ...(process.env as Record<string, string>), ...options.env },
    ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid } : {}),
  });
  let printed = '';
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    pty.onExit(() => {
      exited = true;
      resolve();
    }),
  );
  pty.onData((data) => (printed += data.replace(/\r\n/g, '\n')));

  const consoleUrl = await new Promise<string>((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      // Readable (the address on the next line) or JSON (`log.format: json`) alike.
      const match = /serving the console at(?:\n\s+| )(https?:\/\/[^\s"]+\/web)[\n"]/.exec(printed);
      if (match) {
        clearInterval(timer);
        resolve(match[1]!);
      } else if (exited || Date.now() - started > 30_000) {
        clearInterval(timer);
        reject(new Error(`postern did not start:\n${printed}`));
      }
    }, 100);
  });

  return {
    consoleUrl,
    dataDir,
    output: () => printed,
    async stop() {
      if (!exited) pty.kill('SIGTERM');
      await exit;
    },
  };
}
