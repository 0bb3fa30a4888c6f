import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnDaemon, type Daemon } from './daemon.testkit.js';
import { freePort, waitForPort } from './sshd.testkit.js';

const HAPROXY = '/usr/sbin/haproxy';

/** How often haproxy asks each proxy's /readyz, and how many failures in a row take it out. */
export const haproxyCheckIntervalMs = 500;
export const haproxyFall = 2;

export interface HaproxyBackend {
  host: string;
  port: number;
}

/** A backend server as haproxy sees it: `UP`, `DOWN`, `UP 1/2` (going down), `MAINT`… */
export interface HaproxyServerState {
  /** `p0`, `p1`, …: the backends in the order given. */
  name: string;
  status: string;
}

export interface RunningHaproxy {
  /** `http://127.0.0.1:<port>` (`https://` with `tls`), what clients use instead of a proxy's. */
  url: string;
  port: number;
  /** The backends' states from haproxy's stats socket. */
  servers(): Promise<HaproxyServerState[]>;
  /** Resolves once haproxy has every backend up (after a restart, say), or throws after 15 s. */
  allUp(timeoutMs?: number): Promise<void>;
  /** Its log so far: every request (httplog) and every check that changed a server's state. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real load balancer (Debian's HAProxy 2.6, installed by scripts/ensure-test-deps.sh) in front
 * of several proxies, as docs/high-availability.md asks for: on a free loopback port, run in the
 * foreground (`-db`) from a config in a temp dir.
 *
 * - Plain HTTP proxies (`--insecure-no-tls`, the default here) are balanced in HTTP mode: haproxy
 *   speaks HTTP to both sides, so every request picks a server that is up, WebSockets switch to a
 *   tunnel after their upgrade (`timeout tunnel`), and the server side of each request is a fresh
 *   connection (`http-server-close`), so a proxy that stopped listening is a refused connection,
 *   which haproxy retries on another proxy (`retries`, `option redispatch 1`), never an idle
 *   kept-alive connection closed under a request.
 * - TLS proxies (`tls: true`) are passed through in TCP mode (haproxy holds no certificate) and
 *   checked over TLS without verification (they have self-signed certificates).
 *
 * Each proxy's `GET /readyz` is checked every 500 ms: two failures in a row (`fall 2`) take it
 * out, one success (`rise 1`) puts it back. So a proxy draining on SIGTERM (readyz 503 at once)
 * gets no new traffic within about a second: its `shutdown_drain` must be longer than that.
 *
 * There is deliberately no `on-marked-down shutdown-sessions`: a draining proxy is marked down
 * while its live sessions (terminal WebSockets, tunnels) must go on until the drain ends, and
 * shutting them down there would cut exactly what the drain keeps. A proxy that died closes its
 * connections itself (the kernel resets them), so the option would add nothing there either.
 */
export async function startHaproxy(options: {
  backends: HaproxyBackend[];
  tls?: boolean;
  /**
   * Pass connections through in TCP mode with a PROXY protocol v2 header first (`send-proxy-v2`),
   * as in front of the SSH port or TLS passed through; the backends must trust haproxy.
   */
  sendProxy?: boolean;
  /** false: no /readyz checks (the SSH port has none); the backends count as up. */
  check?: boolean;
  /**
   * The loopback address haproxy connects to the backends from (`source`), so a test can tell
   * the balancer's address from its client's when both are on this machine.
   */
  source?: string;
}): Promise<RunningHaproxy> {
  if (options.backends.length === 0) throw new Error('haproxy needs at least one backend');
  // A port taken between freePort() and haproxy's bind fails that attempt: try fresh ports.
  for (let attempt = 1; ; attempt++) {
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-haproxy-'));
    try {
      return await launch(dir, options.backends, {
        tls: options.tls === true,
        sendProxy: options.sendProxy === true,
        check: options.check !== false,
        ...(options.source ? { source: options.source } : {}),
      });
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      if (attempt >= 3) throw error;
    }
  }
}

interface HaproxyMode {
  tls: boolean;
  sendProxy: boolean;
  check: boolean;
  source?: string;
}

async function launch(
  dir: string,
  backends: HaproxyBackend[],
  mode: HaproxyMode,
): Promise<RunningHaproxy> {
  const { tls } = mode;
  const port = await freePort();
  const socket = path.join(dir, 'admin.sock');
  const config = path.join(dir, 'haproxy.cfg');
  await writeFile(config, haproxyConfig({ port, backends, socket, ...mode }));
  const daemon: Daemon = spawnDaemon(HAPROXY, ['-f', config, '-db'], dir);
  const stop = async () => {
    await daemon.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, daemon.running, daemon.output, 'haproxy');
  } catch (error) {
    await stop();
    throw error;
  }
  const servers = async (): Promise<HaproxyServerState[]> => {
    const csv = await adminCommand(socket, 'show stat\n');
    const header = csv.split('\n')[0]!.replace(/^# /, '').split(',');
    const column = (name: string) => header.indexOf(name);
    return csv
      .split('\n')
      .slice(1)
      .map((line) => line.split(','))
      .filter((cells) => cells[column('pxname')] === 'postern' && /^p\d+$/.test(cells[1] ?? ''))
      .map((cells) => ({ name: cells[column('svname')]!, status: cells[column('status')]! }));
  };
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    servers,
    async allUp(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const states = await servers();
        const up = (status: string) => status === 'UP' || (!mode.check && status === 'no check');
        if (states.length === backends.length && states.every((s) => up(s.status))) return;
        if (Date.now() > deadline) {
          throw new Error(`haproxy's backends are not all up: ${JSON.stringify(states)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    output: daemon.output,
    stop,
  };
}

function haproxyConfig(
  options: { port: number; backends: HaproxyBackend[]; socket: string } & HaproxyMode,
): string {
  const { port, backends, socket, sendProxy } = options;
  // PROXY headers pass connections through: TCP mode, as with TLS.
  const tcp = options.tls || sendProxy;
  const tls = options.tls;
  const check = [
    `inter ${haproxyCheckIntervalMs}`,
    `fastinter ${haproxyCheckIntervalMs}`,
    `downinter ${haproxyCheckIntervalMs}`,
    `fall ${haproxyFall}`,
    'rise 1',
    ...(tls ? ['check-ssl', 'verify none'] : []),
  ].join(' ');
  const serverOptions = [
    ...(options.check ? [`check ${check}`] : []),
    ...(sendProxy ? ['send-proxy-v2'] : []),
    ...(options.source ? [`source ${options.source}`] : []),
  ].join(' ');
  const servers = backends
    .map((backend, i) => `  server p${i} ${backend.host}:${backend.port} ${serverOptions}`)
    .join('\n');
  return `global
  log stderr format raw local0 info
  maxconn 2000
  stats socket ${socket} mode 600 level admin
  # Checks start at once and in step, not spread over the interval.
  spread-checks 0

defaults
  mode ${tcp ? 'tcp' : 'http'}
  log global
  option ${tcp ? 'tcplog' : 'httplog'}
  option dontlognull
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # WebSockets (terminals, agent tunnels) once upgraded, and TLS passed through.
  timeout tunnel 1h
  timeout check 3s
  # A connection a proxy refuses (it stopped listening) is tried again on another proxy.
  retries 3
  option redispatch 1
${tcp ? '' : '  retry-on conn-failure\n  timeout http-request 10s\n  timeout http-keep-alive 10s\n'}
frontend postern_in
  bind 127.0.0.1:${port}
  default_backend postern

backend postern
  balance roundrobin
${tcp ? '' : '  option http-server-close\n'}${options.check ? '  option httpchk\n  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host localhost\n  http-check expect status 200\n' : ''}${servers}
`;
}

/** One command on haproxy's stats socket; resolves with its whole answer. */
function adminCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.once('error', reject);
    socket.once('end', () => resolve(answer));
    socket.once('connect', () => socket.end(command));
  });
}
