import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { dialWebSocket } from '../httpstream/dial-websocket.js';
import { UpgradeFailedError } from '../httpstream/dial-options.js';
import { exitCodeOf, exitStatus } from '../httpstream/status.js';
import { readAll, until } from '../spdy/spdy.testkit.js';
import { dialExec } from './dial-exec.js';
import { execQuery, type ExecRequest } from './exec-request.js';
import { startExecServer, type ExecTestServer } from './exec-server.testkit.js';
import { streamProtocolV4, streamProtocolV5, type TerminalSize } from './protocol.js';
import type { ExecServerSession, RemoteCommandTransport } from './session.js';

const servers: ExecTestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(
  run: (session: ExecServerSession) => void | Promise<void>,
  options: Parameters<typeof startExecServer>[1] = {},
) {
  const started = await startExecServer(run, options);
  servers.push(started);
  return started;
}

const plain: ExecRequest = {
  command: ['cat'],
  stdin: true,
  stdout: true,
  stderr: true,
  tty: false,
};
const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A server command: "out" on stdout, "err" on stderr, stdin echoed back, exit code 3. */
async function echoThenExit3(session: ExecServerSession): Promise<void> {
  session.stdout!.write('out:');
  session.stderr?.write('err');
  for await (const chunk of session.stdin!) session.stdout!.write(chunk as Buffer);
  await session.finish(exitStatus(3));
}

describe.each<RemoteCommandTransport>(['websocket', 'spdy'])('exec over %s', (transport) => {
  it('carries stdout, stderr, stdin to its EOF, and the exit code', async () => {
    const { url } = await server(echoThenExit3);
    const session = await dialExec(url, { request: plain, transports: [transport] });
    expect(session.transport).toBe(transport);
    expect(session.protocol).toBe(streamProtocolV5);
    const stdout = readAll(session.stdout!);
    const stderr = readAll(session.stderr!);
    session.stdin!.end('typed');
    expect((await stdout).toString()).toBe('out:typed');
    expect((await stderr).toString()).toBe('err');
    expect(exitCodeOf(await session.status)).toBe(3);
  });

  it('sends terminal sizes to a tty session', async () => {
    const sizes: TerminalSize[] = [];
    const { url } = await server(async (session) => {
      session.onResize((size) => sizes.push(size));
      for await (const chunk of session.stdin!) session.stdout!.write(chunk as Buffer);
      await session.finish(exitStatus(0));
    });
    const tty: ExecRequest = {
      command: ['sh'],
      stdin: true,
      stdout: true,
      stderr: true,
      tty: true,
    };
    const session = await dialExec(url, { request: tty, transports: [transport] });
    expect(session.stderr).toBeUndefined(); // A terminal merges stderr into stdout.
    session.resize(100, 40);
    session.resize(120, 50);
    await until(() => sizes.length === 2, 'both sizes');
    expect(sizes).toEqual([
      { width: 100, height: 40 },
      { width: 120, height: 50 },
    ]);
    session.stdin!.end();
    expect(exitCodeOf(await session.status)).toBe(0);
  });

  it('holds the server back while the client does not read stdout', async () => {
    const payload = randomBytes(8 * 1024 * 1024);
    let blocked = false;
    const { url } = await server(async (session) => {
      blocked = !session.stdout!.write(payload);
      await session.finish(exitStatus(0));
    });
    const request: ExecRequest = { ...plain, stdin: false, stderr: false };
    const session = await dialExec(url, { request, transports: [transport] });
    await until(() => blocked, 'the server to see backpressure');
    // Nothing reads yet: what the client holds stays far below what the server wrote.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(session.stdout!.readableLength).toBeLessThan(payload.length / 4);
    expect(digest(await readAll(session.stdout!))).toBe(digest(payload));
    expect(exitCodeOf(await session.status)).toBe(0);
  });

  it('holds the client back while the server does not read stdin', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { url } = await server(async (session) => {
      await released;
      const received = await readAll(session.stdin!);
      session.stdout!.write(digest(received));
      await session.finish(exitStatus(0));
    });
    const session = await dialExec(url, { request: plain, transports: [transport] });
    const payload = randomBytes(8 * 1024 * 1024);
    const stdout = readAll(session.stdout!);
    session.stdin!.end(payload);
    await until(() => session.stdin!.writableLength > payload.length / 2, 'stdin to back up');
    release();
    expect((await stdout).toString()).toBe(digest(payload));
  });
});

describe('exec negotiation', () => {
  it('falls back to SPDY when the server refuses the WebSocket upgrade', async () => {
    const { url } = await server(echoThenExit3, { websocket: false });
    const session = await dialExec(url, { request: plain });
    expect(session.transport).toBe('spdy');
    session.stdin!.end();
    expect(exitCodeOf(await session.status)).toBe(3);
  });

  it('speaks v4 to a client that offers only v4', async () => {
    const { url } = await server(async (session) => {
      session.stdout!.write(session.protocol);
      await session.finish(exitStatus(0));
    });
    const target = new URL(url);
    target.search = execQuery({ ...plain, stdin: false }).toString();
    const { socket, protocol } = await dialWebSocket(target, [streamProtocolV4]);
    expect(protocol).toBe(streamProtocolV4);
    const messages: Buffer[] = [];
    socket.on('message', (data: Buffer) => messages.push(data));
    socket.resume();
    await new Promise((resolve) => socket.once('close', resolve));
    expect(messages[0]!.subarray(1).toString()).toBe(streamProtocolV4);
    expect(messages[0]![0]).toBe(1);
  });

  it('refuses a WebSocket offering no channel protocol it speaks, with a Status', async () => {
    const { url } = await server(echoThenExit3);
    const target = new URL(url);
    target.search = execQuery(plain).toString();
    const refused = dialWebSocket(target, ['base64.channel.k8s.io']);
    await expect(refused).rejects.toBeInstanceOf(UpgradeFailedError);
    await expect(refused).rejects.toMatchObject({ statusCode: 400 });
  });

  it('refuses a request for no stream at all', async () => {
    const { url } = await server(echoThenExit3);
    const none: ExecRequest = {
      command: ['true'],
      stdin: false,
      stdout: false,
      stderr: false,
      tty: false,
    };
    await expect(dialExec(url, { request: none })).rejects.toMatchObject({
      statusCode: 400,
      status: { message: 'you must specify at least 1 of stdin, stdout, stderr' },
    });
  });

  it('gives up on a SPDY client that never opens its streams', async () => {
    const started = await server(echoThenExit3, { streamTimeoutMs: 100 });
    const { dialSpdy } = await import('../httpstream/dial-spdy.js');
    const target = new URL(started.url);
    target.search = execQuery(plain).toString();
    const { connection } = await dialSpdy(target, [streamProtocolV5]);
    await until(() => started.refusals.length === 1, 'the refusal');
    expect(started.refusals[0]!.message).toMatch(/timed out waiting for the client's streams/);
    expect(await connection.closed).toBeUndefined();
  });

  it('rejects without falling back when nothing listens', async () => {
    const url = 'http://127.0.0.1:9/api/v1/namespaces/default/pods/x/exec';
    await expect(dialExec(url, { request: plain })).rejects.toThrow(/ECONNREFUSED/);
  });
});
