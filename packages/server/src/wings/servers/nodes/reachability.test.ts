import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { freePort, startSshd, type RunningSshd } from '../../../testing/sshd.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { answersSsh, OpenSshReachability } from './reachability.js';

let app: TestApp;
let sshd: RunningSshd | undefined;
let checker: OpenSshReachability;
let headers: Record<string, string>;
const ids: Record<'sshd' | 'closed', string> = { sshd: '', closed: '' };

beforeAll(async () => {
  app = await createTestApp();
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const add = async (name: string, port: number) =>
    (
      await app.services.inventory.addOpenSsh(
        { name, addr: `127.0.0.1:${port}`, labels: {} },
        hostActor('test'),
      )
    ).metadata.name;
  ids.sshd = await add('answers', sshd.port);
  // Nobody listens there: the host "does not answer".
  ids.closed = await add('silent', await freePort());
  checker = new OpenSshReachability(app.services.inventory, {
    intervalMs: 1000,
    timeoutMs: 500,
    log: () => undefined,
  });
  checker.start();
  headers = await app.signIn(['access'], 'ava');
}, 30_000);

afterAll(async () => {
  checker?.stop();
  await sshd?.stop();
  await app?.close();
});

/** The Servers API's view of one server, as the console reads it. */
async function listed(hostname: string) {
  const res = await app.server.inject({
    url: '/v1/webapi/sites/test-cluster/nodes',
    headers,
    query: { search: hostname },
  });
  expect(res.statusCode).toBe(200);
  const items = res.json().items as Array<{
    hostname: string;
    status: string;
    lastHeartbeat: string;
  }>;
  return items.find((item) => item.hostname === hostname)!;
}

describe('agentless OpenSSH servers', () => {
  it('show online once their SSH banner answers, with the time they were last seen', async () => {
    await vi.waitFor(async () => expect((await listed('answers')).status).toBe('online'), {
      timeout: 5000,
    });
    const seen = Date.parse((await listed('answers')).lastHeartbeat);
    expect(Math.abs(seen - app.clock.now())).toBeLessThan(5000);
  });

  it('show offline, never seen, when nothing listens at their address', async () => {
    // Checked several times by now (the sshd host came online meanwhile).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await listed('silent')).toMatchObject({ status: 'offline', lastHeartbeat: '' });
  });

  it('go offline within two intervals of stopping to answer, and keep their last-seen time', async () => {
    await sshd!.stop();
    sshd = undefined;
    const stoppedAt = app.clock.now();
    await vi.waitFor(async () => expect((await listed('answers')).status).toBe('offline'), {
      timeout: 6000,
      interval: 200,
    });
    const { lastHeartbeat } = await listed('answers');
    expect(lastHeartbeat).not.toBe('');
    expect(Date.parse(lastHeartbeat)).toBeLessThanOrEqual(stoppedAt);
  });
});

/** A loopback TCP server that treats each connection with `serve`. */
async function listen(
  serve: (socket: Socket) => void,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    serve(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => sockets.add(socket));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('the banner check', () => {
  it('needs an SSH identification line; silence or another protocol is no answer', async () => {
    const silent = await listen(() => undefined);
    const web = await listen((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    try {
      expect(await answersSsh(`127.0.0.1:${silent.port}`, 300)).toBe(false);
      expect(await answersSsh(`127.0.0.1:${web.port}`, 300)).toBe(false);
      expect(await answersSsh(`127.0.0.1:${await freePort()}`, 300)).toBe(false);
    } finally {
      await Promise.all([silent.close(), web.close()]);
    }
  });

  it('accepts a server that sends other lines before its identification', async () => {
    const ssh = await listen((socket) => socket.end('welcome\r\nSSH-2.0-Test_1.0\r\n'));
    try {
      expect(await answersSsh(`127.0.0.1:${ssh.port}`, 1000)).toBe(true);
    } finally {
      await ssh.close();
    }
  });
});
