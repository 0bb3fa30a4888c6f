// The baseline: OpenSSH's own client, `ssh -tt`, straight to the same sshd with a plain key.
// Driven through pipes (-tt forces the remote PTY; nothing on our side needs a TTY), its output
// is decoded and scanned exactly like the proxy client's.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { OutputWatch } from './output.mjs';

export function sshArgs(sshd) {
  return [
    '-tt',
    '-i',
    sshd.clientKey,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-p',
    String(sshd.port),
    'root@127.0.0.1',
  ];
}

/** Starts `ssh -tt` and resolves at once (the process is running; output follows). */
export function openSshTerminal(sshd) {
  const openedAt = performance.now();
  const child = spawn('ssh', sshArgs(sshd), {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TERM: 'xterm-256color', SSH_AUTH_SOCK: '' },
  });
  const out = new OutputWatch();
  const decoder = new TextDecoder('utf-8');
  let stderr = '';
  child.stdout.on('data', (chunk) =>
    out.feed(decoder.decode(chunk, { stream: true }), chunk.length),
  );
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  child.stdin.on('error', () => {}); // the session may end while we type
  const exited = new Promise((resolve) =>
    child.once('exit', (code) => {
      out.close(`ssh exited with ${code}${stderr ? `: ${stderr.trim()}` : ''}`);
      resolve();
    }),
  );
  return {
    kind: 'ssh',
    pid: child.pid,
    openedAt,
    out,
    type: (keys) => child.stdin.write(keys),
    close() {
      child.stdin.end();
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
