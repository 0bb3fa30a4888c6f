import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { agentPaths } from '@postern/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { ed25519PrivateKeyObject, generateEd25519Key } from '../ssh/keys.js';
import { agentTunnelDraining, tunnelProtocolVersion } from '../modules/tunnel/tunnel-protocol.js';
import { Backoff } from './backoff.js';
import { TunnelClient } from './tunnel-client.js';
import { eventually, recordingLog } from './tunnel-proxy.testkit.js';

/**
 * A hand-driven proxy, so the agent can be shown what a real proxy of this version never sends:
 * a dial for a service it did not advertise, or the answers of an older proxy.
 */
interface FakeProxy {
  url: URL;
  hellos: Array<Record<string, unknown>>;
  /** Each control connection's opening time, in order. */
  attempts: number[];
  /** Frames the agent sent after the handshake. */
  frames: Array<Record<string, unknown>>;
  /** The current control socket. */
  control(): WebSocket | undefined;
  close(): Promise<void>;
}

type Behaviour = (socket: WebSocket, frame: Record<string, unknown>, step: number) => void;

async function fakeProxy(behave: Behaviour): Promise<FakeProxy> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, path: agentPaths.tunnel });
  await new Promise((resolve) => server.once('listening', resolve));
  const hellos: Array<Record<string, unknown>> = [];
  const attempts: number[] = [];
  const frames: Array<Record<string, unknown>> = [];
  let current: WebSocket | undefined;
  server.on('connection', (socket) => {
    current = socket;
    attempts.push(Date.now());
    let step = 0;
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      if (step === 0) hellos.push(frame);
      else if (step > 1) frames.push(frame);
      behave(socket, frame, step++);
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    hellos,
    attempts,
    frames,
    control: () => current,
    close: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Challenge on the hello, then `ready` (of `version`, or none as a protocol 1 proxy sends). */
const handshake =
  (version: number | undefined): Behaviour =>
  (socket, _frame, step) => {
    if (step === 0) socket.send(JSON.stringify({ challenge: randomBytes(32).toString('base64') }));
    if (step === 1) socket.send(JSON.stringify({ type: 'ready', version, pingIntervalMs: 60_000 }));
  };

const nodeId = '6f1d3c1e-2b8e-4c52-9a0e-1f4f0b7d9a21';

function client(proxy: FakeProxy, backoff = new Backoff(200, 30_000, () => 1)) {
  const log = recordingLog();
  const handled: string[] = [];
  const tunnel = new TunnelClient({
    base: proxy.url,
    insecure: false,
    nodeId,
    hostCertificate: () => 'ssh-ed25519-cert-v01@openssh.com AAAA',
    hostKey: ed25519PrivateKeyObject(generateEd25519Key().privateKeyPem),
    heartbeat: () => ({
      hostname: 'h',
      os: '',
      labels: {},
      cmdLabels: {},
      hostPublicKey: '',
    }),
    heartbeatMs: 60_000,
    services: [{ service: { kind: 'node', name: nodeId }, handle: () => handled.push('node') }],
    onReady: () => {},
    onCertificate: () => {},
    log,
    backoff,
  });
  return { tunnel, log, handled };
}

/** Each wait between attempts is at least what the backoff (200 ms, doubling, no jitter) asked. */
function expectBackoffGaps(attempts: number[]): void {
  const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!);
  gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(200 * 2 ** i - 20));
}

describe('the agent end of the tunnel', () => {
  let proxy: FakeProxy | undefined;
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    await proxy?.close();
    stop = undefined;
    proxy = undefined;
  });

  it('advertises its services in a hello of the current protocol version', async () => {
    proxy = await fakeProxy(handshake(tunnelProtocolVersion));
    const { tunnel } = client(proxy);
    stop = () => tunnel.stop();
    tunnel.start();
    await eventually(() => tunnel.connected, 5000, 'ready');
    expect(proxy.hellos[0]).toMatchObject({
      version: tunnelProtocolVersion,
      nodeId,
      services: [{ kind: 'node', name: nodeId }],
    });
  });

  it('told that the proxy drains, reconnects at once when it closes instead of backing off', async () => {
    proxy = await fakeProxy(handshake(tunnelProtocolVersion));
    // A backoff that would wait 20 s: only the draining path can reconnect within the test.
    const { tunnel, log } = client(proxy, new Backoff(20_000, 30_000, () => 1));
    stop = () => tunnel.stop();
    tunnel.start();
    await eventually(() => tunnel.connected, 5000, 'ready');
    proxy.control()!.send(JSON.stringify({ type: 'draining' }));
    await eventually(() => log.lines.some((l) => l.includes('shutting down')), 5000, 'heard');
    expect(tunnel.connected).toBe(true); // live connections go on until the proxy closes
    proxy.control()!.close(1001, 'proxy stopping');
    await eventually(() => proxy!.attempts.length === 2, 3000, 'reconnected');
    expect(proxy.attempts[1]! - proxy.attempts[0]!).toBeLessThan(5000);
  });

  it('refused by a draining proxy, tries again soon; refused otherwise, it backs off', async () => {
    let refusals = 1;
    proxy = await fakeProxy((socket, frame, step) => {
      if (step === 0 && refusals-- > 0) {
        socket.send(JSON.stringify({ type: 'error', message: agentTunnelDraining }));
        socket.close(1008, 'draining');
        return;
      }
      handshake(tunnelProtocolVersion)(socket, frame, step);
    });
    const { tunnel } = client(proxy, new Backoff(20_000, 30_000, () => 1));
    stop = () => tunnel.stop();
    tunnel.start();
    await eventually(() => tunnel.connected, 3000, 'in through the next attempt');
    expect(proxy.attempts).toHaveLength(2);
  });

  it('refuses a dial for a service it does not serve, and tells the proxy why', async () => {
    proxy = await fakeProxy(handshake(tunnelProtocolVersion));
    const { tunnel, log, handled } = client(proxy);
    stop = () => tunnel.stop();
    tunnel.start();
    await eventually(() => tunnel.connected, 5000, 'ready');
    const id = randomBytes(16).toString('hex');
    const service = { kind: 'app', name: 'grafana' };
    proxy.control()!.send(JSON.stringify({ type: 'dial', id, service }));
    await eventually(() => proxy!.frames.some((f) => f.type === 'dialRefused'), 5000, 'refusal');
    expect(proxy.frames.find((f) => f.type === 'dialRefused')).toEqual({
      type: 'dialRefused',
      id,
      message: 'this agent does not serve app grafana',
    });
    expect(handled).toEqual([]);
    expect(log.lines.some((line) => line.includes('does not serve app grafana'))).toBe(true);
    expect(tunnel.connected).toBe(true);
  });

  it('leaves a proxy of protocol 1, naming both versions, and retries only at its backoff', async () => {
    proxy = await fakeProxy(handshake(undefined));
    const { tunnel, log } = client(proxy);
    stop = () => tunnel.stop();
    tunnel.start();
    await eventually(() => proxy!.attempts.length >= 3, 10_000, 'three attempts');
    expect(tunnel.connected).toBe(false);
    const why = 'proxy speaks tunnel protocol 1, this agent speaks 2: upgrade the proxy';
    expect(log.lines.some((line) => line.startsWith('error:') && line.includes(why))).toBe(true);
    expectBackoffGaps(proxy.attempts);
  });

  it("prints a proxy's refusal and retries only at its backoff", async () => {
    const why = 'agent speaks tunnel protocol 1, this proxy speaks 2: upgrade the agent';
    proxy = await fakeProxy((socket) => {
      socket.send(JSON.stringify({ type: 'error', message: why }));
      socket.close(1008, why);
    });
    const { tunnel, log } = client(proxy);
    stop = () => tunnel.stop();
    tunnel.start();
    await eventually(() => proxy!.attempts.length >= 3, 10_000, 'three attempts');
    expect(log.lines).toContainEqual(
      expect.stringContaining(`error: the proxy refused this agent: ${why}`),
    );
    expectBackoffGaps(proxy.attempts);
  });
});
