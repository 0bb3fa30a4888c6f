import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './sshd.testkit.js';

const NGINX = '/usr/sbin/nginx';

export interface RunningNginx {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The directory it serves files from. */
  root: string;
  stop(): Promise<void>;
}

/**
 * A real nginx (Debian's nginx-light, installed by scripts/ensure-test-deps.sh) serving static
 * files from a temp dir on a free loopback port, configured entirely inside that dir.
 */
export async function startNginx(): Promise<RunningNginx> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-nginx-'));
  const root = path.join(dir, 'www');
  await mkdir(root);
  await mkdir(path.join(dir, 'temp'));
  const port = await freePort();
  // As root, nginx's workers would drop to `nobody`, who cannot read a 0700 temp dir.
  const user = process.getuid?.() === 0 ? 'user root;' : '';
  const temp = (kind: string) => `${kind}_temp_path ${path.join(dir, 'temp', kind)};`;
  await writeFile(
    path.join(dir, 'nginx.conf'),
    `${user}
daemon off;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 64; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  default_type application/octet-stream;
  sendfile on;
  server {
    listen 127.0.0.1:${port};
    root ${root};
  }
}
`,
  );
  let output = '';
  const child = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', 'stderr'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let running = true;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running = false;
      resolve();
    }),
  );
  const stop = async () => {
    if (running) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(
      port,
      () => running,
      () => output,
      'nginx',
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, root, stop };
}
