import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSshClient, type OpenSshClientSetup } from '../../../testing/openssh-client.testkit.js';
import { startTestSshProxy } from '../../../testing/ssh-proxy.testkit.js';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../../testing/terminal-fixture.testkit.js';

// Sockets that connect to the SSH listener and never sign in are cut after the login grace
// (30 s; 1 s here); a client that signed in keeps its connection as long as it likes.

const graceMs = 1_000;
let fixture: TerminalFixture;
let proxy: Awaited<ReturnType<typeof startTestSshProxy>>;
let alice: OpenSshClientSetup;

beforeAll(async () => {
  fixture = await startTerminalFixture({ nodeName: 'grace-host' });
  const { app } = fixture;
  await app.services.users.create({ name: 'alice', roles: [fixture.role] }, 'test');
  proxy = await startTestSshProxy(app, { loginGraceMs: graceMs });
  alice = await openSshClient({
    ca: app.services.ca,
    user: 'alice',
    roles: [fixture.role],
    logins: ['root'],
    proxyPort: proxy.port,
  });
}, 60_000);

afterAll(async () => {
  await alice?.remove();
  await proxy?.stop();
  await fixture?.close();
});

/** Milliseconds until the proxy closes a socket that sends `hello` and then nothing. */
function lifetime(hello: string): Promise<number> {
  const started = performance.now();
  const socket: Socket = connect(proxy.port, '127.0.0.1', () => {
    if (hello) socket.write(hello);
  });
  socket.resume();
  return new Promise((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(performance.now() - started));
  });
}

describe('the SSH login grace', () => {
  it('cuts a silent socket and one that stops after its banner', async () => {
    const [silent, bannerOnly] = await Promise.all([
      lifetime(''),
      lifetime('SSH-2.0-OpenSSH_9.2p1\r\n'),
    ]);
    for (const ms of [silent, bannerOnly]) {
      expect(ms).toBeGreaterThan(graceMs * 0.8);
      expect(ms).toBeLessThan(graceMs + 5_000);
    }
  });

  it('leaves a signed-in client alone past the grace', async () => {
    const result = await alice.run('ssh', ['root@grace-host', 'sleep 2; echo still-here']);
    expect(result).toMatchObject({ code: 0, stdout: 'still-here\n' });
  });
});
