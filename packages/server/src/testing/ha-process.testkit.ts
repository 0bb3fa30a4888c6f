import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The built CLI (`npx tsc -b packages/server` first): tests run the real binary. POSTERN_TEST_BIN
 * names another build's `bin/postern.js` (a patched copy, say) to run these tests against.
 */
export const posternBin =
  process.env.POSTERN_TEST_BIN ?? fileURLToPath(new URL('../../bin/postern.js', import.meta.url));

/** Every child still running: a test that timed out or crashed must not leave them behind. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * One `postern …` process that can be stopped and run again with the same arguments: its output
 * is kept across runs (a line `--- run N ---` between them), for failing tests to show.
 */
export class PosternProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private output = '';
  private runs = 0;

  constructor(
    /** What it is called in errors: `proxy 1`, `agent`. */
    readonly name: string,
    private readonly args: string[],
  ) {}

  get pid(): number | undefined {
    return this.running() ? this.child?.pid : undefined;
  }

  running(): boolean {
    return (
      this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
    );
  }

  logs(): string {
    return this.output;
  }

  /** Starts it and resolves when a line of its output matches `until` (it failed: rejects). */
  async start(until: RegExp, timeoutMs = 30_000): Promise<void> {
    if (this.running()) throw new Error(`${this.name} is running already`);
    this.runs += 1;
    if (this.runs > 1) this.output += `--- run ${this.runs} ---\n`;
    const from = this.output.length;
    const child = spawn(process.execPath, [posternBin, ...this.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    children.add(child);
    this.exited = new Promise((resolve) => {
      child.once('exit', () => {
        children.delete(child);
        resolve();
      });
      child.once('error', (error) => {
        this.output += `cannot run ${this.name}: ${error.message}\n`;
        children.delete(child);
        resolve();
      });
    });
    const append = (chunk: Buffer) => (this.output += chunk.toString());
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const deadline = Date.now() + timeoutMs;
    while (!until.test(this.output.slice(from))) {
      if (!this.running() || Date.now() > deadline) {
        const why = this.running() ? `did not log ${String(until)} in ${timeoutMs} ms` : 'exited';
        throw new Error(`${this.name} ${why}:\n${this.output.slice(from).slice(-4000)}`);
      }
      await sleep(25);
    }
  }

  /** Sends `signal` and waits for the process to exit (at once when it is not running). */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.running()) this.child?.kill(signal);
    await this.exited;
  }

  /** SIGTERM, then SIGKILL when it has not exited after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running()) return this.exited;
    this.child?.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Runs a short `postern …` command (an admin command) to its end: its exit code and output. */
export function runPostern(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [posternBin, ...args], { timeout: 30_000 }, (error, out, err) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${out}${err}` });
    });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it returns true; rejects naming `what` after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await Promise.resolve()
      .then(check)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) {
      const named = typeof what === 'string' ? what : what();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${named}`);
    }
    await sleep(everyMs);
  }
}
