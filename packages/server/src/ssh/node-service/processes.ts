import { spawn as spawnChild } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { spawn as spawnPty } from 'node-pty';
import type { ServerChannel } from 'ssh2';
import { launchAs, type LoginAccount } from './os-user.js';

/** A process started for a session; the session forwards resizes and signals to it. */
export interface SessionProcess {
  resize(cols: number, rows: number): void;
  /** Sends an SSH signal name (INT, TERM…); false when the name is not one SSH defines. */
  signal(name: string): boolean;
  /** The client went away: hang up like a closing terminal, then kill what lingers. */
  hangUp(): void;
}

export interface ProcessSpec {
  file: string;
  args: string[];
  account: LoginAccount;
  env: Record<string, string>;
  cwd: string;
}

/** RFC 4254 §6.10: the signal names a client may send. */
const SSH_SIGNALS = new Set([
  'ABRT',
  'ALRM',
  'FPE',
  'HUP',
  'ILL',
  'INT',
  'KILL',
  'PIPE',
  'QUIT',
  'SEGV',
  'TERM',
  'USR1',
  'USR2',
]);
const HANG_UP_GRACE_MS = 3000;

/**
 * Runs the process on a new PTY. Output is read only as fast as the client's SSH window lets us
 * send it: when `channel.write` reports a full buffer the PTY is paused until 'drain', so a flood
 * (`yes`) blocks the writer in the kernel instead of growing our memory.
 */
export function startInPty(
  channel: ServerChannel,
  spec: ProcessSpec,
  terminal: { term: string; cols: number; rows: number },
): SessionProcess {
  const launch = launchAs(spec.account, spec.file, spec.args);
  const pty = spawnPty(launch.file, launch.args, {
    name: terminal.term,
    cols: terminal.cols,
    rows: terminal.rows,
    cwd: spec.cwd,
    env: spec.env,
    encoding: null, // Buffers: bytes pass through untouched, multibyte characters never split
    ...launch.ids,
  });
  let paused = false;
  pty.onData((chunk: string | Buffer) => {
    // After the client closed the channel the output has nowhere to go; hangUp ends the process.
    if (!channel.writable) return;
    if (channel.write(chunk) || paused) return;
    paused = true;
    pty.pause();
    channel.once('drain', () => {
      paused = false;
      pty.resume();
    });
  });
  channel.on('data', (input: Buffer) => pty.write(input));
  // node-pty reports the exit only after it has read the PTY to its end, so no output is lost.
  let exited = false;
  pty.onExit(({ exitCode, signal }) => {
    exited = true;
    void finish(channel, exitCode, signal ? signalName(signal) : undefined);
  });

  const processGroup = () => foregroundProcessGroup(pty.pid) ?? pty.pid;
  return {
    resize: (cols, rows) => pty.resize(Math.max(cols, 1), Math.max(rows, 1)),
    // Like a terminal's ^C: the signal goes to the foreground job (the shell gives each job its
    // own process group), not only to the shell.
    signal: (name) => sendSignal(processGroup(), name),
    hangUp: () => {
      if (exited) return;
      if (paused) pty.resume(); // let it read to the end and exit
      hangUp(processGroup, pty.pid);
    },
  };
}

/** Runs the process without a PTY: stdin, stdout and stderr stay separate, with stream backpressure. */
export function startPiped(channel: ServerChannel, spec: ProcessSpec): SessionProcess {
  const launch = launchAs(spec.account, spec.file, spec.args);
  const child = spawnChild(launch.file, launch.args, {
    cwd: spec.cwd,
    env: spec.env,
    // Its own process group, so a signal from the client reaches the whole command pipeline.
    detached: true,
    stdio: 'pipe',
    ...launch.ids,
  });
  child.stdout.pipe(channel, { end: false });
  child.stderr.pipe(channel.stderr, { end: false });
  channel.pipe(child.stdin);
  child.stdin.on('error', () => {}); // EPIPE when the command exits before reading all input
  child.once('error', (error) => {
    if (channel.stderr.writable)
      channel.stderr.write(`cannot start ${spec.file}: ${error.message}\r\n`);
    void finish(channel, 127);
  });
  // 'close' comes after the exit and after stdout and stderr ended, so all output is in the channel.
  child.once(
    'close',
    (code, signal) =>
      void finish(channel, code ?? 0, signal ? signal.replace(/^SIG/, '') : undefined),
  );

  return {
    resize: () => {},
    signal: (name) => child.pid !== undefined && sendSignal(child.pid, name),
    hangUp: () => {
      const pid = child.pid;
      if (pid !== undefined && child.exitCode === null && child.signalCode === null)
        hangUp(() => pid, pid);
    },
  };
}

const finishedChannels = new WeakSet<ServerChannel>();

/** exit-status or exit-signal, sent after every byte of output, then EOF and close. */
async function finish(channel: ServerChannel, code: number, signal?: string): Promise<void> {
  // A failed spawn reports both 'error' and 'close'; the first one decides.
  if (finishedChannels.has(channel)) return;
  finishedChannels.add(channel);
  await Promise.all([flushed(channel), flushed(channel.stderr)]);
  if (!channel.writable) return; // the client closed the channel first
  if (signal) channel.exit(signal, false, '');
  else channel.exit(code);
  channel.end();
}

/**
 * Resolves once everything written so far has gone out. Writes run in order, so the callback of
 * an empty write fires after every earlier one. ssh2 sends `exit` outside the stream, so without
 * this an exit status could overtake output still waiting for the client's window.
 */
const flushed = (stream: Writable) =>
  new Promise<void>((resolve) => {
    if (!stream.writable) return resolve();
    stream.write(Buffer.alloc(0), () => resolve());
  });

function sendSignal(processGroup: number, name: string): boolean {
  const bare = name.replace(/^SIG/, '');
  if (!SSH_SIGNALS.has(bare)) return false;
  try {
    process.kill(-processGroup, `SIG${bare}` as NodeJS.Signals);
  } catch {
    // Already gone: nothing to signal.
  }
  return true;
}

function hangUp(processGroup: () => number, pid: number): void {
  sendSignal(processGroup(), 'HUP');
  sendSignal(pid, 'HUP');
  setTimeout(() => {
    if (isAlive(pid)) sendSignal(pid, 'KILL');
  }, HANG_UP_GRACE_MS).unref();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The terminal's foreground process group, from /proc/<pid>/stat (field 8, tpgid), on Linux. */
function foregroundProcessGroup(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp session tty_nr tpgid …"; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tpgid = Number(fields[5]);
    return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : undefined;
  } catch {
    return undefined;
  }
}

function signalName(signalNumber: number): string {
  const entry = Object.entries(constants.signals).find(([, value]) => value === signalNumber);
  return entry ? entry[0].replace(/^SIG/, '') : 'KILL';
}
