// nginx as a reverse proxy, the peer bench:apps compares Postern's transfers with: Debian's
// nginx-light (scripts/ensure-test-deps.sh installs it), configured in a temp dir, on a free
// loopback port, in front of the bench's upstream. Buffering on (nginx's default) and off.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { accepts, freePort } from './ports.mjs';

const NGINX = '/usr/sbin/nginx';

/** Starts nginx with two proxy servers to 127.0.0.1:`upstreamPort`; resolves with their ports. */
export async function startNginxProxy(dir, upstreamPort) {
  await mkdir(path.join(dir, 'temp'), { recursive: true });
  const [buffered, unbuffered] = [await freePort(), await freePort()];
  const temp = (kind) => `${kind}_temp_path ${path.join(dir, 'temp', kind)};`;
  const proxy = (port, buffering) => `
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://127.0.0.1:${upstreamPort};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_request_buffering ${buffering};
      proxy_buffering ${buffering};
    }
  }`;
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `${process.getuid?.() === 0 ? 'user root;' : ''}
daemon off;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  client_max_body_size 0;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
${proxy(buffered, 'on')}
${proxy(unbuffered, 'off')}
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', conf, '-e', 'stderr'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(buffered)) || !(await accepts(unbuffered))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    buffered,
    unbuffered,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
