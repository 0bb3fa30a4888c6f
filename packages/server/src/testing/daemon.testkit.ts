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

/** Daemons still running: a test that timed out must not leave them behind the test run. */
const running = new Set<() => void>();
process.once('exit', () => {
  for (const kill of running) kill();
});

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
  let alive = true;
  const kill = () => child.kill('SIGTERM');
  running.add(kill);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      output += `cannot run ${binary}: ${error.message}\n`;
      resolve();
    });
  });
  void exited.then(() => {
    alive = false;
    running.delete(kill);
  });
  return {
    output: () => output,
    running: () => alive,
    exited,
    async stop() {
      if (alive) kill();
      await exited;
    },
  };
}
