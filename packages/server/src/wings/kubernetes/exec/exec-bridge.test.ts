import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf, exitStatus } from '../httpstream/status.js';
import {
  dialExec,
  type ExecClientSession,
  type ExecRequest,
  type ExecServerSession,
  type RemoteCommandTransport,
} from '../remotecommand/index.js';
import { startExecServer, type ExecTestServer } from '../remotecommand/exec-server.testkit.js';
import { readAll, until } from '../spdy/spdy.testkit.js';
import { bridgeExec } from './exec-bridge.js';

const servers: ExecTestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const request: ExecRequest = {
  command: ['cat'],
  stdin: true,
  stdout: true,
  stderr: true,
  tty: false,
};

/**
 * The cluster (`upstream` runs each session) behind a middle server that bridges every exec it
 * takes to the cluster over `upstreamTransport`, as the proxy does. What the middle dialled is
 * kept, with the bytes its output streams carried.
 */
async function bridged(
  upstreamTransport: RemoteCommandTransport,
  upstream: (session: ExecServerSession) => Promise<void>,
) {
  const cluster = await startExecServer(upstream);
  const dialled: { client: ExecClientSession; streamedBytes: number }[] = [];
  const middle = await startExecServer(async (session) => {
    const client = await dialExec(cluster.url, {
      request: session.request,
      transports: [upstreamTransport],
    });
    const seen = { client, streamedBytes: 0 };
    dialled.push(seen);
    for (const stream of [client.stdout, client.stderr]) {
      stream?.on('data', (chunk: Buffer) => (seen.streamedBytes += chunk.length));
    }
    await bridgeExec(session, client);
  });
  servers.push(cluster, middle);
  return { url: middle.url, dialled };
}

describe.each<[RemoteCommandTransport, RemoteCommandTransport]>([
  ['websocket', 'websocket'],
  ['websocket', 'spdy'],
  ['spdy', 'websocket'],
  ['spdy', 'spdy'],
])('an exec without a terminal bridged from %s to %s', (kubectlTransport, clusterTransport) => {
  it('carries stdout, stderr, stdin to its EOF and the exit code', async () => {
    const payload = randomBytes(3 * 1024 * 1024 + 17);
    const { url } = await bridged(clusterTransport, async (session) => {
      session.stderr!.write('err');
      for await (const chunk of session.stdin!) session.stdout!.write(chunk as Buffer);
      await session.finish(exitStatus(3));
    });
    const session = await dialExec(url, { request, transports: [kubectlTransport] });
    const stdout = readAll(session.stdout!);
    const stderr = readAll(session.stderr!);
    session.stdin!.end(payload);
    expect(digest(await stdout)).toBe(digest(payload));
    expect((await stderr).toString()).toBe('err');
    expect(exitCodeOf(await session.status)).toBe(3);
  });
});

describe('an exec bridged between two WebSockets', () => {
  it('passes output messages whole, the output streams carrying none of them', async () => {
    const payload = randomBytes(1024 * 1024);
    const { url, dialled } = await bridged('websocket', async (session) => {
      session.stdout!.write(payload);
      session.stderr!.write('err');
      await session.finish(exitStatus(0));
    });
    const session = await dialExec(url, { request, transports: ['websocket'] });
    session.stdin!.end();
    const [stdout, stderr] = await Promise.all([
      readAll(session.stdout!),
      readAll(session.stderr!),
    ]);
    expect(digest(stdout)).toBe(digest(payload));
    expect(stderr.toString()).toBe('err');
    expect(exitCodeOf(await session.status)).toBe(0);
    expect(dialled[0]!.streamedBytes).toBe(0);
  });

  it('holds the cluster back while kubectl does not read, and then delivers every byte', async () => {
    const payload = randomBytes(32 * 1024 * 1024);
    let blocked = false;
    let written = false;
    const { url } = await bridged('websocket', async (session) => {
      blocked = !session.stdout!.write(payload);
      await session.finish(exitStatus(0)); // Waits for the output to leave.
      written = true;
    });
    const session = await dialExec(url, { request, transports: ['websocket'] });
    session.stdin!.end();
    await until(() => blocked, 'the cluster to see backpressure');
    // Nobody reads: the middle relays only as far as its limits, so the cluster stays held.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(written).toBe(false);
    expect(session.stdout!.readableLength).toBeLessThan(payload.length / 4);
    expect(digest(await readAll(session.stdout!))).toBe(digest(payload));
    expect(exitCodeOf(await session.status)).toBe(0);
  });
});
