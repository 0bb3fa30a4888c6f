import type { Socket } from 'node:net';
import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../access/actor.js';
import type { SessionHub } from '../sessions/session-hub.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { startSshd } from '../../testing/sshd.testkit.js';
import { openTerminal, type TerminalClient } from '../../testing/terminal-client.testkit.js';

// A browser that reads slowly while the node floods: what the proxy holds for it stays under
// 1 MiB (the rest waits on the node), and Ctrl-C brings the prompt back once it reads again.

let app: TestApp;
let sshd: Awaited<ReturnType<typeof startSshd>>;
let baseUrl: string;
let nodeId: string;
const MiB = 1024 * 1024;

beforeAll(async () => {
  app = await createTestApp();
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const admin = hostActor('test');
  nodeId = (
    await app.services.inventory.addOpenSsh(
      { name: 'flood-host', addr: `127.0.0.1:${sshd.port}`, labels: {} },
      admin,
    )
  ).metadata.name;
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'root-access' },
      spec: { allow: { node_labels: { '*': '*' }, logins: ['root'] } },
    }),
    admin,
  );
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
  await app?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hub = () => (app.services as unknown as { hub: SessionHub }).hub;
const sessionId = (client: TerminalClient) => {
  const frame = client.frames.find((f) => f.type === T.sessionData);
  return (JSON.parse(frame!.payload) as { session: { id: string } }).session.id;
};

/** Reads for `readMs` out of every `everyMs`: a slow link, or a busy tab. */
function readSlowly(socket: Socket, everyMs: number, readMs: number) {
  socket.pause();
  const timer = setInterval(() => {
    socket.resume();
    setTimeout(() => socket.pause(), readMs);
  }, everyMs);
  return () => {
    clearInterval(timer);
    socket.resume();
  };
}

describe('a slow reader under a flood', () => {
  // Slow from the first moment (the window the channel opened with) and once the flood is well
  // under way (the window as it is given back).
  for (const floodFirstMs of [100, 2000]) {
    it(`holds at most 1 MiB in the proxy (slow from ${floodFirstMs} ms into the flood)`, async () => {
      const alice = await app.signIn(['root-access'], 'alice');
      const client = await openTerminal({
        baseUrl,
        headers: alice,
        params: { server_id: nodeId, login: 'root', term: { w: 80, h: 24 } } as never,
      });
      await client.waitForOutput(/[#$] $/m);
      const session = hub().get(sessionId(client))!;
      client.type('yes\r');
      await sleep(floodFirstMs);
      const raw = (client.socket as unknown as { _socket: Socket })._socket;
      const stop = readSlowly(raw, 500, 10);
      let most = 0;
      for (let i = 0; i < 60; i += 1) {
        await sleep(50);
        most = Math.max(most, session.heldOutputBytes());
      }
      stop();
      // Before the fix this was over 3 MiB: ssh2's own window and stream buffer, 2 MiB each.
      expect(most).toBeLessThanOrEqual(MiB);
      expect(most).toBeGreaterThan(0); // the flood did reach the proxy

      const before = client.output().length;
      client.type('\x03');
      await client.waitFor(
        () => /[#$] $/.test(client.output().slice(before).slice(-200)),
        'the prompt after Ctrl-C',
        5_000,
      );
      client.close();
    }, 30_000);
  }
});
