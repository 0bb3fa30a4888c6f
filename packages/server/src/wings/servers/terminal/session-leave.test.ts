import { apiPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';
import { openTerminal, type TerminalClient } from '../../../testing/terminal-client.testkit.js';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../../testing/terminal-fixture.testkit.js';

// A tab closed while its terminal was resuming cannot close a socket, so the console posts the
// session's key to `terminal/sessions/{sid}/leave` as the page goes: the session ends at once
// instead of after the grace (docs/protocol.md §6.1). Real sshd, real sockets.

let fixture: TerminalFixture;
// Long enough that an end within the test can only come from the leave.
const graceMs = 60_000;

beforeAll(async () => {
  fixture = await startTerminalFixture({ terminalResumeGraceMs: graceMs });
}, 60_000);

afterAll(() => fixture?.close());

const hub = () => fixture.app.services.hub;

async function droppedShell(user = 'alice') {
  const headers = await fixture.app.signIn([fixture.role], user);
  const client = await openTerminal({
    baseUrl: fixture.baseUrl,
    headers,
    params: { server_id: fixture.nodeId, login: 'root', term: { w: 80, h: 24 } },
  });
  await client.waitForOutput(/[#$] $/m);
  const key = client.resumeKey();
  if (!key) throw new Error('no resume key was given');
  client.socket.terminate(); // the network drops: 1006 at the proxy
  await client.closed;
  return { headers, client, key };
}

function leave(sid: string, body: unknown, headers: Record<string, string> = {}) {
  return fixture.app.server.inject({
    method: 'POST',
    url: apiPaths.terminalLeave(sid),
    headers,
    payload: body as object,
  });
}

async function ended(client: TerminalClient, sid: string) {
  await client.waitFor(() => hub().get(sid) === undefined, 'the end', 5_000);
}

describe('POST terminal/sessions/{sid}/leave', () => {
  it('ends a session waiting for its resume at once, as the owner leaving', async () => {
    const { headers, client, key } = await droppedShell();
    expect(hub().get(key.sid)?.isEnded).toBe(false); // waiting, for a minute
    const res = await leave(key.sid, { key: key.key }, headers);
    expect(res.statusCode).toBe(200);
    await ended(client, key.sid);
    const left = await auditEventsOf(fixture.app, 'T2003I');
    expect(left.find((e) => e.sid === key.sid)).toMatchObject({
      user: 'alice',
      reason: 'its tab was closed while the connection was lost',
    });
    // The key is spent with the session: neither a second leave nor a resume gets anywhere.
    expect((await leave(key.sid, { key: key.key }, headers)).statusCode).toBe(404);
  }, 30_000);

  it('refuses a wrong key and another user alike, and leaves the session waiting', async () => {
    const { headers, key } = await droppedShell();
    const wrongKey = await leave(key.sid, { key: 'x'.repeat(43) }, headers);
    expect(wrongKey.statusCode).toBe(404);
    expect(wrongKey.json().error.message).toBe(
      'the session cannot be left: no session to resume with this key',
    );
    const bob = await fixture.app.signIn([fixture.role], 'bob');
    const asBob = await leave(key.sid, { key: key.key }, bob);
    expect(asBob.statusCode).toBe(404);
    expect(asBob.json().error.message).toBe(wrongKey.json().error.message);
    expect(hub().get(key.sid)?.isEnded).toBe(false);
    expect((await leave(key.sid, { key: key.key }, headers)).statusCode).toBe(200);
  }, 30_000);

  it('is 401 signed out and 400 without a key; neither touches the session', async () => {
    const { headers, key } = await droppedShell();
    const signedOut = await leave(key.sid, { key: key.key });
    expect(signedOut.statusCode).toBe(401);
    for (const body of [{}, { key: '' }, { key: 7 }]) {
      const bad = await leave(key.sid, body, headers);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.message).toMatch(/key/);
    }
    expect(hub().get(key.sid)?.isEnded).toBe(false);
    expect((await leave(key.sid, { key: key.key }, headers)).statusCode).toBe(200);
  }, 30_000);
});
