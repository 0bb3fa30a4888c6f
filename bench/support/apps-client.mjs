// The load side of bench:apps, in its own process (run with runClient below) so that every path
// is driven alike and the bench's own event loop (RSS polling) stays out of the way:
//   load      `connections` keep-alive sockets, each sending GETs back to back for a while
//   download  one GET of a large body, read to the end
//   upload    one POST of a large body
// It answers the parent over IPC with its figures.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { blocks } from './apps-servers.mjs';
import { quantile } from './report.mjs';

/**
 * Runs one job in a fresh client process. `target` is {port, host?, cookie?}: every request
 * goes to 127.0.0.1:port, with that Host and Cookie when given.
 */
export function runClient(job) {
  const child = fork(fileURLToPath(import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // Settled once the process has ended, so a caller accounting CPU (cpu-account.mjs) finds it
  // among the children waited for, not half in /proc and half in the next run's count.
  return new Promise((resolve, reject) => {
    let answer;
    child.once('message', (message) => {
      answer = message;
      child.disconnect();
    });
    child.once('exit', (code) => {
      if (answer === undefined) reject(new Error(`the bench client exited with ${code}`));
      else if (answer.error) reject(new Error(answer.error));
      else resolve(answer);
    });
    child.send(job);
  });
}

function options(target, agent, extra = {}) {
  const headers = { ...extra.headers };
  if (target.host) headers.host = target.host;
  if (target.cookie) headers.cookie = target.cookie;
  return { host: '127.0.0.1', port: target.port, agent, ...extra, headers };
}

/** One request; resolves with its status and the body length once the body is read. */
function request(opts, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(opts, (res) => {
      let bytes = 0;
      let text = '';
      res.on('data', (chunk) => {
        bytes += chunk.length;
        if (text.length < 64) text += chunk.toString('latin1', 0, 64);
      });
      res.on('end', () => resolve({ status: res.statusCode, bytes, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) Readable.from(body).pipe(req);
    else req.end();
  });
}

async function load({ target, path, connections, durationMs, warmupMs }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  const statuses = {};
  let errors = 0;
  const start = performance.now();
  const from = start + warmupMs;
  const until = from + durationMs;
  const worker = async () => {
    while (performance.now() < until) {
      const sent = performance.now();
      try {
        const { status, bytes } = await request(options(target, agent, { path }));
        const done = performance.now();
        if (sent >= from && done <= until) {
          latencies.push(done - sent);
          const key = status === 200 && bytes === 1024 ? 'ok' : `${status}/${bytes} B`;
          statuses[key] = (statuses[key] ?? 0) + 1;
        }
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
  return {
    requests: latencies.length,
    perSecond: (statuses.ok ?? 0) / (durationMs / 1000),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    statuses,
    errors,
    sockets: connections,
  };
}

async function transfer({ target, path, bytes, upload }) {
  const started = performance.now();
  const body = upload ? blocks(randomBytes(1024 * 1024), bytes) : undefined;
  const extra = upload
    ? { path, method: 'POST', headers: { 'content-length': bytes } }
    : { path, method: 'GET' };
  const res = await request(options(target, undefined, extra), body);
  const seconds = (performance.now() - started) / 1000;
  const moved = upload ? Number(res.text) : res.bytes;
  if (res.status !== 200 || moved !== bytes) {
    throw new Error(`${upload ? 'upload' : 'download'}: status ${res.status}, ${moved} bytes`);
  }
  return { seconds, mibPerSecond: bytes / (1024 * 1024) / seconds };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', async (job) => {
    try {
      process.send(job.mode === 'load' ? await load(job) : await transfer(job));
    } catch (error) {
      process.send({ error: error.message });
    }
  });
}
