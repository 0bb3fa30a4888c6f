// The other ends of bench:apps, each in its own process (started with startServer below):
// `upstream`, the app (node:http on 127.0.0.1: a 1 KiB answer, a download of any size, an upload
// sink), and `bare-proxy`, the baseline: the simplest correct node:http reverse proxy in front
// of the same upstream. Each sends its port to the parent over IPC once listening.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable, pipeline } from 'node:stream';
import { fileURLToPath } from 'node:url';

const block = 1024 * 1024;

/** Starts this file as `role` in a child process; resolves with its port and a stop(). */
export async function startServer(role, ...args) {
  const child = fork(fileURLToPath(import.meta.url), [role, ...args.map(String)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    void exited.then((code) => reject(new Error(`${role} exited with ${code} before listening`)));
  });
  return {
    pid: child.pid,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * GET /1k: 1 KiB. GET /download?bytes=N: N bytes, a 1 MiB block of crypto random data made at
 * start and sent over and over (nothing on disk, no random generation in the measured path).
 * POST /upload: reads the body and answers with its length.
 */
function upstream() {
  const small = randomBytes(1024);
  const random = randomBytes(block);
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    if (req.method === 'GET' && url.pathname === '/1k') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 1024 });
      res.end(small);
    } else if (req.method === 'GET' && url.pathname === '/download') {
      const bytes = Number(url.searchParams.get('bytes'));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes });
      pipeline(Readable.from(blocks(random, bytes)), res, () => {});
    } else if (req.method === 'POST' && url.pathname === '/upload') {
      let received = 0;
      req.on('data', (chunk) => (received += chunk.length));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(String(received));
      });
    } else {
      req.resume();
      res.writeHead(404);
      res.end();
    }
  });
}

/** `bytes` bytes of `source`, repeated. */
export function* blocks(source, bytes) {
  for (let left = bytes; left > 0; left -= source.length) {
    yield left >= source.length ? source : source.subarray(0, left);
  }
}

// Hop-by-hop headers (RFC 9110 7.6.1): for this connection only, never forwarded.
const hopByHop = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade'];
const endToEnd = (headers) => {
  const out = { ...headers };
  for (const name of hopByHop) delete out[name];
  return out;
};

/** The baseline proxy: http.request to the upstream on a keep-alive agent, bodies piped. */
function bareProxy(upstreamPort) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  return http.createServer((req, res) => {
    const upstreamReq = http.request(
      {
        host: '127.0.0.1',
        port: upstreamPort,
        method: req.method,
        path: req.url,
        headers: endToEnd(req.headers),
        agent,
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, endToEnd(upstreamRes.headers));
        pipeline(upstreamRes, res, () => {});
      },
    );
    upstreamReq.on('error', () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end();
    });
    pipeline(req, upstreamReq, () => {});
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [role, upstreamPort] = process.argv.slice(2);
  const server = role === 'upstream' ? upstream() : bareProxy(Number(upstreamPort));
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
  process.on('SIGTERM', () => process.exit(0));
  process.on('disconnect', () => process.exit(0));
}
