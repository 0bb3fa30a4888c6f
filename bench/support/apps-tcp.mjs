// TCP apps for bench:apps: `postern proxy app` as a user runs it, and redis-benchmark's figures.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { posternBin } from './postern.mjs';

const run = promisify(execFile);

/**
 * `postern proxy app NAME --port 0` (or `proxy db` with kind 'db') with the login in `home`;
 * resolves once it listens.
 */
export async function startAppTunnel(home, name, kind = 'app') {
  const child = spawn(process.execPath, [posternBin, 'proxy', kind, name, '--port', '0'], {
    env: { ...process.env, POSTERN_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listener in 15 s:\n${output}`)), 15_000);
    const read = (chunk) => {
      output += chunk.toString();
      const match = / on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) =>
      reject(new Error(`postern proxy ${kind} exited ${code}:\n${output}`)),
    );
  });
  return {
    port,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** redis-benchmark's requests per second for SET and GET against host:port. */
export async function redisBenchmark(host, port, clients) {
  const { stdout } = await run(
    'redis-benchmark',
    [
      '-h',
      host,
      '-p',
      String(port),
      '-c',
      String(clients),
      '-n',
      '100000',
      '-t',
      'set,get',
      '--csv',
    ],
    { timeout: 300_000 },
  );
  const figures = {};
  for (const line of stdout.split('\n')) {
    const match = /^"(SET|GET)","([\d.]+)"/.exec(line);
    if (match) figures[match[1]] = Number(match[2]);
  }
  if (!figures.SET || !figures.GET)
    throw new Error(`unexpected redis-benchmark output:\n${stdout}`);
  return figures;
}
