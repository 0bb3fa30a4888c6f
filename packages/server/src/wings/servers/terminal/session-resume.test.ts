import { terminalMessageTypes as T, type ActiveSessionJson } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocketParty } from '../../../modules/terminal/websocket-party.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';
import { openTerminal, type TerminalClient } from '../../../testing/terminal-client.testkit.js';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../../testing/terminal-fixture.testkit.js';

// A web terminal whose connection drops without a close (a network change, a sleeping laptop)
// is kept for its owner's client, which resumes it over a new socket with the session's key and
// gets exactly the output it missed (docs/protocol.md §6.1). Real sshd, real sockets.

let fixture: TerminalFixture;
const graceMs = 3_000;
const MiB = 1024 * 1024;

beforeAll(async () => {
  fixture = await startTerminalFixture({ terminalResumeGraceMs: graceMs });
}, 60_000);

afterAll(() => fixture?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hub = () => fixture.app.services.hub;

async function shell(user = 'alice', autoAck = true) {
  const headers = await fixture.app.signIn([fixture.role], user);
  const client = await openTerminal({
    baseUrl: fixture.baseUrl,
    headers,
    params: { server_id: fixture.nodeId, login: 'root', term: { w: 80, h: 24 } },
    autoAck,
  });
  await client.waitForOutput(/[#$] $/m);
  const key = client.resumeKey();
  if (!key) throw new Error('no resume key was given');
  return { headers, client, key };
}

/** `read()`'s value once `done` holds for it (the session listing follows a write). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The network drops: no close frame reaches the proxy (1006 there). */
async function drop(client: TerminalClient) {
  client.socket.terminate();
  await client.closed;
}

function resume(
  headers: Record<string, string>,
  resume: { sid: string; key: string; received: number },
) {
  return openTerminal({
    baseUrl: fixture.baseUrl,
    headers,
    params: { server_id: fixture.nodeId, login: 'root', term: { w: 80, h: 24 } },
    resume,
  });
}

describe('resuming a web terminal after its connection dropped', () => {
  it('goes on over a new socket with exactly the output missed meanwhile', async () => {
    const { headers, client, key } = await shell('alice', false);
    client.ackAll(); // the prompt; what follows is unacknowledged when the network drops
    const command = 'sleep 1; echo "af""ter-drop"\r';
    client.type(command);
    await client.waitForOutput('sleep 1');
    await drop(client);
    await sleep(1_500); // the echo comes while nobody is connected
    // Claim 6 bytes fewer than received (not processed yet, say): they come again, then the rest.
    const received = client.received() - 6;
    const resumed = await resume(headers, { sid: key.sid, key: key.key, received });
    // It says how much of the input it took, so a client resends only what did not arrive.
    expect(resumed.response).toEqual({
      type: 'create_session_response',
      status: 'ok',
      input_received: command.length,
    });
    await resumed.waitForOutput('after-drop');
    expect(resumed.output().startsWith(client.output().slice(-6))).toBe(true);
    resumed.type('echo "sti""ll-here"\r');
    await resumed.waitForOutput('still-here');

    const session = hub().get(key.sid);
    expect(session?.isEnded).toBe(false);
    expect(session?.parties()).toHaveLength(1); // the same party, moved
    const lost = await auditEventsOf(fixture.app, 'TPOS051W');
    const back = await auditEventsOf(fixture.app, 'TPOS052I');
    expect(lost.filter((e) => e.sid === key.sid)).toHaveLength(1);
    expect(back.filter((e) => e.sid === key.sid)).toMatchObject([{ user: 'alice' }]);
    const left = await auditEventsOf(fixture.app, 'T2003I');
    expect(left.filter((e) => e.sid === key.sid)).toHaveLength(0);

    // Each key resumes once: a new one came with the resume.
    const next = resumed.resumeKey();
    expect(next?.key).not.toBe(key.key);
    const replay = await resume(headers, { ...key, received: 0 });
    expect(replay.response).toMatchObject({
      status: 'error',
      message: 'the session cannot be resumed: no session to resume with this key',
    });
    resumed.close();
  }, 30_000);

  it('takes over from a socket the proxy still thinks is open (half-open)', async () => {
    const { headers, client, key } = await shell();
    const resumed = await resume(headers, { ...key, received: client.received() });
    expect(resumed.response.status).toBe('ok');
    expect((await client.closed).code).toBe(1006); // cut off by the proxy
    resumed.type('echo "tak""en-over"\r');
    await resumed.waitForOutput('taken-over');
    expect(hub().get(key.sid)?.isEnded).toBe(false);
    resumed.close();
  }, 30_000);

  it('refuses a wrong key, another user, and an offset it no longer holds', async () => {
    const { headers, client, key } = await shell();
    await drop(client);
    const refused = (r: TerminalClient) => r.response.message;
    const wrongKey = await resume(headers, { ...key, key: 'x'.repeat(43), received: 0 });
    expect(refused(wrongKey)).toBe(
      'the session cannot be resumed: no session to resume with this key',
    );
    const bob = await fixture.app.signIn([fixture.role], 'bob');
    const asBob = await resume(bob, { ...key, received: client.received() });
    expect(refused(asBob)).toBe(wrongKey.response.message);
    const ahead = await resume(headers, { ...key, received: client.received() + 100 });
    expect(refused(ahead)).toBe(
      'the session cannot be resumed: the output it missed is no longer held',
    );
    // None of that used the key up.
    const resumed = await resume(headers, { ...key, received: client.received() });
    expect(resumed.response.status).toBe('ok');
    resumed.close();
  }, 30_000);

  it('lets a joiner whose connection drops leave at once, and keeps the owner resumable', async () => {
    const { headers, client, key } = await shell();
    const joiner = await fixture.open(headers, { sid: key.sid, mode: 'peer' });
    await joiner.waitFor(() => hub().get(key.sid)?.parties().length === 2, 'the join');
    expect(joiner.resumeKey()).toBeUndefined(); // only the owner's client may resume
    await drop(joiner);
    await joiner.waitFor(() => hub().get(key.sid)?.parties().length === 1, 'the leave', 2_000);
    const another = await fixture.open(headers, { sid: key.sid, mode: 'peer' });
    await another.waitFor(() => hub().get(key.sid)?.parties().length === 2, 'the second join');
    another.close();
    await another.waitFor(() => hub().get(key.sid)?.parties().length === 1, 'the second leave');

    await drop(client);
    const resumed = await resume(headers, { ...key, received: client.received() });
    expect(resumed.response.status).toBe('ok');
    resumed.close();
  }, 30_000);

  it('shows the others and Active Sessions a dropped owner as lost, until it resumes', async () => {
    const { headers, client, key } = await shell();
    const joiner = await fixture.open(headers, { sid: key.sid, mode: 'peer' });
    await joiner.waitFor(() => hub().get(key.sid)?.parties().length === 2, 'the join');
    const owner = hub().get(key.sid)!.parties()[0]!;
    const auditor = await fixture.app.signIn(['auditor'], 'audrey');
    const lostAt = async () => {
      const listed = await fixture.app.server.inject({
        url: '/v1/webapi/sites/-current-/sessions',
        headers: auditor,
      });
      expect(listed.statusCode).toBe(200);
      const session = (listed.json() as { sessions: ActiveSessionJson[] }).sessions.find(
        (s) => s.id === key.sid,
      );
      return session?.parties.find((p) => p.id === owner.id)?.connection_lost_at;
    };
    const notices = () =>
      joiner.frames
        .filter((f) => f.type === T.audit)
        .map((f) => JSON.parse(f.payload) as { event: string; user: string })
        .filter((e) => e.event.startsWith('session.'));
    // Joined once its first screen is out (the join notice follows it).
    await joiner.waitFor(() => notices().length > 0, 'the join notice');
    expect(await lostAt()).toBeUndefined();

    await drop(client);
    await joiner.waitFor(
      () => notices().some((e) => e.event === 'session.connection_lost'),
      'the notice',
    );
    expect(notices().at(-1)).toEqual({ event: 'session.connection_lost', user: 'alice' });
    const listed = await until(lostAt, (at) => at !== undefined, 'the listing');
    expect(Date.parse(listed!)).toBeGreaterThan(Date.now() - 10_000);

    const resumed = await resume(headers, { ...key, received: client.received() });
    expect(resumed.response.status).toBe('ok');
    await joiner.waitFor(() => notices().at(-1)?.event === 'session.resumed', 'the resumed notice');
    expect(notices().at(-1)).toEqual({ event: 'session.resumed', user: 'alice' });
    await until(lostAt, (at) => at === undefined, 'the listing again');
    // The client that resumed is not told about its own drop.
    expect(resumed.frames.some((f) => f.type === T.audit && f.payload.includes('session.'))).toBe(
      false,
    );
    joiner.close();
    resumed.close();
  }, 30_000);

  it('ends the session when nobody resumes it within the grace', async () => {
    const { client, key } = await shell();
    await drop(client);
    await sleep(graceMs / 2);
    expect(hub().get(key.sid)?.isEnded).toBe(false);
    await client.waitFor(() => hub().get(key.sid) === undefined, 'the end', graceMs * 2);
    const left = await auditEventsOf(fixture.app, 'T2003I');
    expect(left.find((e) => e.sid === key.sid)).toMatchObject({
      reason: 'the connection was lost, and it was not resumed in time',
    });
  }, 30_000);

  it('ends the session at once when the client closes the socket (1000)', async () => {
    const { headers, client, key } = await shell();
    client.close();
    await client.waitFor(() => hub().get(key.sid) === undefined, 'the end', 2_000);
    const late = await resume(headers, { ...key, received: client.received() });
    expect(late.response.status).toBe('error');
  }, 30_000);

  it('holds the program back while nobody reads, and Ctrl-C works after the resume', async () => {
    const { headers, client, key } = await shell();
    client.type('yes\r');
    await client.waitForOutput('y\r\ny\r\ny');
    await drop(client);
    const party = hub().get(key.sid)!.parties()[0] as WebSocketParty;
    let most = 0;
    for (let i = 0; i < 20; i += 1) {
      await sleep(50);
      most = Math.max(most, party.heldForResume());
    }
    // Flow control's window and one frame at most: the rest waits in sshd, not in the proxy.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(MiB + 256 * 1024);
    const resumed = await resume(headers, { ...key, received: client.received() });
    await resumed.waitFor(() => resumed.received() > 1000, 'the flood again');
    resumed.type('\x03');
    await resumed.waitFor(
      () => /[#$] $/.test(resumed.output().slice(-200)),
      'the prompt after Ctrl-C',
      15_000,
    );
    resumed.close();
  }, 40_000);

  it('gives no key when resuming is turned off', async () => {
    const off = await startTerminalFixture({ terminalResumeGraceMs: 0 });
    try {
      const headers = await off.app.signIn([off.role], 'alice');
      const client = await off.open(headers);
      await client.waitForOutput(/[#$] $/m);
      expect(client.frames.some((f) => f.type === T.resumeKey)).toBe(false);
      const sid = client.frames.find((f) => f.type === T.sessionData)!.payload;
      await drop(client);
      const id = (JSON.parse(sid) as { session: { id: string } }).session.id;
      await client.waitFor(() => off.app.services.hub.get(id) === undefined, 'the end', 2_000);
    } finally {
      await off.close();
    }
  }, 60_000);
});
