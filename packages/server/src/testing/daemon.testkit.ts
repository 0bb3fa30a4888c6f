import { spawn } from 'node:child_process';

export interface Daemon {
  /** What it printed so far, for failing tests to show. */
  output(): string;
  running(): boolean;
  /** Resolves when it has exited (or could not start). */
  exited: Promise<void>;
  /** Ends it (SIGTERM) and waits for that. */
  stop(): Promise<void>;
}

/**
 * A server program a test starts (Xvnc, xrdp), its output kept. A binary that is missing shows
 * in its output ("cannot run …") rather than as an unhandled error: scripts/ensure-test-deps.sh
 * installs what the tests run.
 */
export function spawnDaemon(binary: string, args: string[], cwd: string): Daemon {
  const child = spawn(binary, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let running = true;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      output += `cannot run ${binary}: ${error.message}\n`;
      resolve();
    });
  });
  void exited.then(() => (running = false));
  return {
    output: () => output,
    running: () => running,
    exited,
    async stop() {
      if (running) child.kill('SIGTERM');
      await exited;
    },
  };
}
