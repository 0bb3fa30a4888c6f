import type { ServerChannel, Session } from 'ssh2';
import { isScpCommand } from '../scp-command.js';
import type { CertifiedIdentity } from './authenticate.js';
import { sessionEnvironment, workingDirectory, type LoginAccount } from './os-user.js';
import { startInPty, startPiped, type SessionProcess } from './processes.js';

export interface SessionContext {
  identity: CertifiedIdentity;
  account: LoginAccount;
  /** The lock message if the user is locked now (checked again at every shell or exec). */
  lockedMessage: () => string | undefined;
  log: (msg: string, fields?: object) => void;
  /** Registers a started process so that closing the service can hang it up. */
  track: (process: SessionProcess) => () => void;
  /** OpenSSH's sftp-server binary, run for the `sftp` subsystem; undefined refuses it. */
  sftpServer: string | undefined;
}

/** Only these come from the client's environment, as with OpenSSH's usual `AcceptEnv`. */
const ACCEPTED_ENV = /^(TERM|LANG|LC_[A-Z_]+)$/;
const MAX_ENV_VALUE = 1024;
const MAX_TERMINAL_SIZE = 10_000;

/**
 * One "session" channel (RFC 4254 §6): optional pty-req and env requests, then one shell or
 * exec, with window-change and signal requests while it runs.
 */
export function serveSession(session: Session, ctx: SessionContext): void {
  const env: Record<string, string> = {};
  let terminal: { term: string; cols: number; rows: number } | undefined;
  let running: SessionProcess | undefined;

  session.on('pty', (accept, reject, info) => {
    if (running) return reject?.();
    terminal = {
      term: info.term || 'xterm',
      cols: clampSize(info.cols, 80),
      rows: clampSize(info.rows, 24),
    };
    accept?.();
  });

  session.on('window-change', (accept, _reject, info) => {
    if (terminal) {
      terminal = {
        ...terminal,
        cols: clampSize(info.cols, terminal.cols),
        rows: clampSize(info.rows, terminal.rows),
      };
      running?.resize(terminal.cols, terminal.rows);
    }
    accept?.();
  });

  session.on('env', (accept, reject, info) => {
    const acceptable =
      !running &&
      ACCEPTED_ENV.test(info.key) &&
      info.val.length <= MAX_ENV_VALUE &&
      !info.val.includes('\0');
    if (!acceptable) return reject?.();
    env[info.key] = info.val;
    accept?.();
  });

  session.on('signal', (accept, reject, info) => {
    if (running?.signal(info.name)) accept?.();
    else reject?.();
  });

  /** False (and the channel ended with the reason) when a lock forbids starting anything. */
  const allowed = (channel: ServerChannel): boolean => {
    const locked = ctx.lockedMessage();
    if (locked === undefined) return true;
    ctx.log('ssh session refused: locked', {
      user: ctx.identity.user,
      login: ctx.identity.login,
    });
    channel.stderr.write(`locked: ${locked}\r\n`);
    channel.exit(1);
    channel.end();
    return false;
  };

  const run = (channel: ServerChannel, file: string, args: string[], what: string) => {
    const { account } = ctx;
    const term = terminal?.term ?? env.TERM;
    const spec = {
      file,
      args,
      account,
      env: sessionEnvironment(account, env, term),
      cwd: workingDirectory(account),
    };
    running = terminal ? startInPty(channel, spec, terminal) : startPiped(channel, spec);
    const untrack = ctx.track(running);
    const started = running;
    channel.once('close', () => {
      untrack();
      started.hangUp();
    });
    ctx.log(what, { user: ctx.identity.user, login: account.login, pty: Boolean(terminal) });
  };

  const start = (channel: ServerChannel, command: string | undefined) => {
    if (!allowed(channel)) return;
    // A shell is a login shell (reads the profile); a command runs with `-c`, as sshd does it.
    const args = command === undefined ? ['-l'] : ['-c', command];
    run(
      channel,
      ctx.account.shell,
      args,
      command === undefined ? 'ssh shell started' : 'ssh exec started',
    );
  };

  session.on('shell', (accept, reject) => {
    if (running) return reject?.();
    start(accept(), undefined);
  });

  /** ssh_file_copy: false on the certificate refuses sftp and scp, saying why. */
  const copyAllowed = (channel: ServerChannel): boolean => {
    if (!ctx.identity.noFileCopy) return true;
    ctx.log('ssh file copy refused', { user: ctx.identity.user, login: ctx.identity.login });
    channel.stderr.write('file copying is not allowed by your roles (ssh_file_copy: false)\r\n');
    channel.exit(1);
    channel.end();
    return false;
  };

  session.on('exec', (accept, reject, info) => {
    if (running) return reject?.();
    const channel = accept();
    if (isScpCommand(info.command) && !copyAllowed(channel)) return;
    start(channel, info.command);
  });

  // SFTP is OpenSSH's sftp-server run as the login's OS user, its stdin and stdout the channel
  // (as sshd's `Subsystem sftp`): the OS decides what the user may read and write. No PTY, even
  // if one was asked for: the protocol is binary.
  session.on('subsystem', (accept, reject, info) => {
    const refuse = (reason: string) => {
      ctx.log('ssh subsystem refused', { user: ctx.identity.user, name: info.name, reason });
      reject?.();
    };
    if (running) return refuse('the session already runs a program');
    if (info.name !== 'sftp') return refuse('unknown subsystem');
    if (!ctx.sftpServer) return refuse('no sftp-server is installed on this host');
    const channel = accept();
    if (!allowed(channel) || !copyAllowed(channel)) return;
    terminal = undefined;
    run(channel, ctx.sftpServer, [], 'ssh subsystem sftp started');
  });
}

function clampSize(value: number, fallback: number): number {
  return Number.isInteger(value) && value > 0 ? Math.min(value, MAX_TERMINAL_SIZE) : fallback;
}
