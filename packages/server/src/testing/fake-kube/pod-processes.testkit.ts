import { spawn as spawnChild } from 'node:child_process';
import { tmpdir } from 'node:os';
import { spawn as spawnPty, type IPty } from 'node-pty';
import type { ExecServerSession } from '../../wings/kubernetes/remotecommand/index.js';
import { exitStatus, failureStatus } from '../../wings/kubernetes/remotecommand/index.js';

/** What commands run with: a minimal environment, not the test runner's. */
function commandEnv(tty: boolean): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tmpdir(),
    LANG: 'C.UTF-8',
    ...(tty ? { TERM: 'xterm' } : {}),
  };
}

/**
 * Runs an exec's command as a real local process: under a pty when it asked for a tty (resizes
 * applied), else with separate stdout and stderr and its exit code in the status. Output waits
 * for the client (pty paused, or pipes backed up), so a flood never piles up here.
 */
export function runExec(session: ExecServerSession, command: string[]): void {
  if (command.length === 0) {
    void session.finish(failureStatus('you must specify at least one command for the container'));
    return;
  }
  // kubectl (client-go's WebSocket executor) reads the socket before it has made its streams,
  // and drops a message that comes first ('Unknown stream id 1, discarding message'). A kubelet
  // takes milliseconds to start a process in a container; a local spawn does not, so the fake
  // waits as long, or a command that writes at once (the bench's `head -c`) loses its start.
  let closed = false;
  void session.closed.then(() => (closed = true));
  setTimeout(() => {
    if (!closed) startExec(session, command);
  }, execStartDelayMs);
}

/** How long the fake's container takes to start an exec's process. */
const execStartDelayMs = 20;

function startExec(session: ExecServerSession, command: string[]): void {
  if (session.tty) return runInPty(session, command);
  const [file, ...args] = command as [string, ...string[]];
  const child = spawnChild(file, args, { cwd: tmpdir(), env: commandEnv(false), stdio: 'pipe' });
  if (session.stdout) child.stdout.pipe(session.stdout, { end: false });
  else child.stdout.resume();
  if (session.stderr) child.stderr.pipe(session.stderr, { end: false });
  else child.stderr.resume();
  if (session.stdin) session.stdin.pipe(child.stdin);
  else child.stdin.end();
  child.stdin.on('error', () => undefined); // EPIPE: the command ended before reading it all
  child.once('error', (error) => void session.finish(failureStatus(error.message)));
  // 'close' comes after the exit and after stdout and stderr ended: all output is written.
  child.once('close', (code: number | null) => void session.finish(exitStatus(code ?? 128)));
  void session.closed.then(() => child.kill('SIGKILL'));
}

function runInPty(session: ExecServerSession, command: string[]): void {
  const [file, ...args] = command as [string, ...string[]];
  let pty: IPty;
  try {
    pty = spawnPty(file, args, {
      cols: 80,
      rows: 24,
      cwd: tmpdir(),
      env: commandEnv(true),
      encoding: null,
    });
  } catch (error) {
    void session.finish(failureStatus((error as Error).message));
    return;
  }
  pipePty(pty, session);
  session.onResize((size) => pty.resize(Math.max(size.width, 1), Math.max(size.height, 1)));
  // node-pty reports the exit once it read the pty to its end: no output is lost.
  pty.onExit(({ exitCode }) => void session.finish(exitStatus(exitCode)));
  void session.closed.then(() => pty.kill());
}

/** Copies a pty's output to the session's stdout, pausing the pty while the client is behind. */
function pipePty(pty: IPty, session: ExecServerSession): void {
  pty.onData((chunk: string | Buffer) => {
    const stdout = session.stdout;
    if (!stdout || stdout.destroyed || stdout.writableEnded) return;
    if (stdout.write(chunk)) return;
    pty.pause();
    stdout.once('drain', () => pty.resume());
  });
  session.stdin?.on('data', (chunk: Buffer) => pty.write(chunk.toString('utf8')));
}

/**
 * A pod's long-running main process (what `kubectl attach` joins): a pty started with the pod.
 * Its output goes to every attached client and to the container's log.
 */
export class MainProcess {
  readonly #pty: IPty;
  readonly #attached = new Set<ExecServerSession>();
  readonly #behind = new Set<ExecServerSession>();
  #exitCode: number | undefined;

  constructor(command: string[], onOutput: (chunk: Buffer) => void) {
    const [file, ...args] = command as [string, ...string[]];
    this.#pty = spawnPty(file, args, {
      cols: 80,
      rows: 24,
      cwd: tmpdir(),
      env: commandEnv(true),
      encoding: null,
    });
    this.#pty.onData((chunk: string | Buffer) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      onOutput(bytes);
      for (const session of this.#attached) this.#send(session, bytes);
    });
    this.#pty.onExit(({ exitCode }) => {
      this.#exitCode = exitCode;
      for (const session of [...this.#attached]) void session.finish(exitStatus(exitCode));
    });
  }

  /** To one attached client; a client that falls behind pauses the pty for everyone. */
  #send(session: ExecServerSession, bytes: Buffer): void {
    const stdout = session.stdout;
    if (!stdout || stdout.destroyed || stdout.writableEnded || stdout.write(bytes)) return;
    this.#behind.add(session);
    this.#pty.pause();
    stdout.once('drain', () => this.#caughtUp(session));
  }

  #caughtUp(session: ExecServerSession): void {
    if (this.#behind.delete(session) && this.#behind.size === 0) this.#pty.resume();
  }

  attach(session: ExecServerSession): void {
    if (this.#exitCode !== undefined) {
      void session.finish(exitStatus(this.#exitCode));
      return;
    }
    this.#attached.add(session);
    session.stdin?.on('data', (chunk: Buffer) => this.#pty.write(chunk.toString('utf8')));
    session.onResize((size) => this.#pty.resize(Math.max(size.width, 1), Math.max(size.height, 1)));
    void session.closed.then(() => {
      this.#attached.delete(session);
      this.#caughtUp(session);
    });
  }

  kill(): void {
    if (this.#exitCode === undefined) this.#pty.kill();
  }
}
