import type { Socket } from 'node:net';
import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionHub } from '../../../modules/sessions/session-hub.js';
import type { TerminalClient } from '../../../testing/terminal-client.testkit.js';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../../testing/terminal-fixture.testkit.js';

// A browser that reads slowly while the node floods: what the proxy holds for it stays under
// 1 MiB (the rest waits on the node), and Ctrl-C brings the prompt back once it reads again.

let fixture: TerminalFixture;
const MiB = 1024 * 1024;

beforeAll(async () => {
  fixture = await startTerminalFixture();
}, 60_000);

afterAll(() => fixture?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hub = () => (fixture.app.services as unknown as { hub: SessionHub }).hub;
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
      const alice = await fixture.app.signIn([fixture.role], 'alice');
      const client = await fixture.open(alice);
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
      // What the flood left in flight drains first; on a machine busy with other tests that took
      // over 5 s once (the latency of Ctrl-C in a flood is bench:terminal's, not this test's).
      await client.waitFor(
        () => /[#$] $/.test(client.output().slice(before).slice(-200)),
        'the prompt after Ctrl-C',
        15_000,
      );
      client.close();
    }, 30_000);
  }
});
