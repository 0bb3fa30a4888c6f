import { terminalMessageTypes as T } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { fakeSockets } from './fakeSocket';
import type { ResumeTimers } from './resume';
import { TtyClient, proxyWentAway, type TtyCloseInfo } from './TtyClient';

/** A clock and timers the test moves by hand. */
function manualTimers() {
  let now = 1_000;
  const pending: { at: number; run: () => void }[] = [];
  const timers: ResumeTimers = {
    now: () => now,
    set: (run, ms) => {
      const entry = { at: now + ms, run };
      pending.push(entry);
      return entry;
    },
    clear: (handle) => {
      const index = pending.indexOf(handle as (typeof pending)[number]);
      if (index >= 0) pending.splice(index, 1);
    },
  };
  return {
    timers,
    /** Moves the clock on by `ms`, running what falls due. */
    advance(ms: number) {
      now += ms;
      for (const entry of pending.filter((p) => p.at <= now)) {
        pending.splice(pending.indexOf(entry), 1);
        entry.run();
      }
    },
  };
}

const key = { sid: 'sid-1', key: 'key-1', grace_ms: 10_000 };
const ok = JSON.stringify({ type: 'create_session_response', status: 'ok' });

function openSession(grace = key.grace_ms) {
  const factory = fakeSockets();
  const clock = manualTimers();
  let token = 'bearer-1';
  const left: { sid: string; key: string }[] = [];
  const client = new TtyClient({
    url: 'wss://proxy.example.com/v1/webapi/sites/root/connect/ws?params=x',
    token,
    currentToken: () => token,
    createSocket: factory.create,
    timers: clock.timers,
    leave: (session) => left.push(session),
  });
  const events: string[] = [];
  const output: string[] = [];
  let closed: TtyCloseInfo | undefined;
  client.on('output', (text) => output.push(text));
  client.on('reconnecting', (ms) => events.push(`reconnecting ${ms}`));
  client.on('resumed', () => events.push('resumed'));
  client.on('close', (info) => (closed = info));
  client.connect();
  factory.last.accept();
  factory.last.receive(T.resumeKey, JSON.stringify({ ...key, grace_ms: grace }));
  factory.last.receive(T.raw, 'hello ');
  return {
    client,
    factory,
    clock,
    events,
    output,
    closed: () => closed,
    left,
    renewToken: (next: string) => (token = next),
  };
}

describe('TtyClient resuming a dropped session', () => {
  it('resumes over a new socket with its key and offset, then sends what was typed meanwhile', () => {
    const t = openSession();
    t.factory.last.serverClose(1006);
    expect(t.client.state).toBe('reconnecting');
    expect(t.events).toEqual([`reconnecting ${key.grace_ms}`]);
    t.client.send('ls\r'); // typed while the connection is down
    t.client.resize({ w: 120, h: 40 });
    t.renewToken('bearer-2');

    t.clock.advance(0);
    const second = t.factory.last;
    expect(t.factory.sockets).toHaveLength(2);
    second.open();
    expect(second.sent).toEqual([
      JSON.stringify({
        token: 'bearer-2',
        resume: { sid: 'sid-1', key: 'key-1', received: 6 },
      }),
    ]);
    second.receiveText(ok);
    expect(t.client.state).toBe('open');
    expect(t.events).toEqual([`reconnecting ${key.grace_ms}`, 'resumed']);
    expect(second.payloads(T.raw)).toEqual(['ls\r']);
    expect(second.payloads(T.resize)).toHaveLength(1);
    // The missed output continues the stream.
    second.receive(T.raw, 'world');
    expect(t.output.join('')).toBe('hello world');
    expect(t.client.counters).toMatchObject({ received: 11, acknowledged: 6 });
    expect(t.closed()).toBeUndefined();
  });

  it('sends again the keystrokes the server did not get before the drop', () => {
    const t = openSession();
    const errors: string[] = [];
    t.client.on('error', (message) => errors.push(message));
    t.client.send('ab');
    t.client.send('cé'); // 3 bytes
    t.factory.last.serverClose(1006);
    t.client.send('x'); // typed while resuming
    t.clock.advance(0);
    t.factory.last.open();
    t.factory.last.receiveText(JSON.stringify({ ...JSON.parse(ok), input_received: 2 }));
    expect(t.factory.last.payloads(T.raw)).toEqual(['cé', 'x']);
    expect(errors).toEqual([]);

    // A second drop counts from the server's count: 2 + 3 + 1 bytes were sent since.
    t.factory.last.serverClose(1006);
    t.clock.advance(0);
    t.factory.last.open();
    t.factory.last.receiveText(JSON.stringify({ ...JSON.parse(ok), input_received: 6 }));
    expect(t.factory.last.payloads(T.raw)).toEqual([]);
  });

  it('says so when keystrokes it no longer keeps were lost', () => {
    const t = openSession();
    const errors: string[] = [];
    t.client.on('error', (message) => errors.push(message));
    const paste = 'p'.repeat(40 * 1024);
    t.client.send(paste);
    t.client.send(paste); // the first paste is no longer kept: 64 KiB at most
    t.factory.last.serverClose(1006);
    t.clock.advance(0);
    t.factory.last.open();
    t.factory.last.receiveText(JSON.stringify({ ...JSON.parse(ok), input_received: 0 }));
    expect(t.factory.last.payloads(T.raw)).toEqual([paste]);
    expect(errors).toEqual(['some keystrokes typed before the connection dropped were lost']);
  });

  it('retries with backoff while the proxy cannot be reached, and gives up after the grace', () => {
    const t = openSession(3_000);
    t.factory.last.serverClose(1006);
    t.clock.advance(0);
    t.factory.last.serverClose(1006); // the first try fails
    t.clock.advance(499);
    expect(t.factory.sockets).toHaveLength(2); // the next waits 500 ms
    t.clock.advance(1);
    expect(t.factory.sockets).toHaveLength(3);
    t.factory.last.serverClose(1006);
    t.clock.advance(1_000);
    t.factory.last.serverClose(1006); // 1.5 s gone; another 2 s would pass the grace
    expect(t.client.state).toBe('closed');
    expect(t.closed()?.reason).toBe(
      'connection lost, and the session could not be resumed: the proxy holding it could not be reached again in time',
    );
    // The tab may then start a new session: the proxy is what went away.
    expect(proxyWentAway(t.closed()!)).toBe(true);
  });

  it('ends with the server’s reason when it refuses the resume', () => {
    const t = openSession();
    t.factory.last.serverClose(1006);
    t.clock.advance(0);
    t.factory.last.open();
    t.factory.last.receiveText(
      JSON.stringify({
        type: 'create_session_response',
        status: 'error',
        message: 'the session cannot be resumed: the session has ended: exited',
      }),
    );
    expect(t.closed()?.reason).toBe(
      'connection lost, and the session could not be resumed: the session has ended: exited',
    );
    expect(t.factory.sockets).toHaveLength(2);
  });

  it('does not resume a close the server or the user chose, or a session without a key', () => {
    const server = openSession();
    server.factory.last.serverClose(1000, 'bye');
    expect(server.client.state).toBe('closed');

    const ended = openSession();
    ended.factory.last.receive(T.sessionEnd, JSON.stringify({ reason: 'exited' }));
    ended.factory.last.serverClose(1006);
    expect(ended.factory.sockets).toHaveLength(1);

    const unkeyed = openSession(0);
    unkeyed.factory.last.serverClose(1006);
    expect(unkeyed.client.state).toBe('closed');
    expect(unkeyed.factory.sockets).toHaveLength(1);
  });

  it('stops resuming when the user closes the tab meanwhile, and gives the session up', () => {
    const t = openSession();
    t.factory.last.serverClose(1006);
    t.client.close('closed the tab');
    t.clock.advance(60_000);
    expect(t.factory.sockets).toHaveLength(1);
    expect(t.closed()).toMatchObject({ code: 1000, endedBy: 'client' });
    // No socket to close: the key the server gave last tells it the session is given up.
    expect(t.left).toEqual([{ sid: 'sid-1', key: 'key-1' }]);
  });

  it('gives up with the key of the last resume, and not at all while a socket is open', () => {
    const t = openSession();
    t.factory.last.serverClose(1006);
    t.clock.advance(0);
    t.factory.last.open();
    t.factory.last.receiveText(ok);
    t.factory.last.receive(T.resumeKey, JSON.stringify({ ...key, key: 'key-2' }));
    t.factory.last.serverClose(1006);
    t.client.close('closed the tab');
    expect(t.left).toEqual([{ sid: 'sid-1', key: 'key-2' }]);

    const open = openSession();
    open.client.close('closed the tab'); // its socket's close (1000) says so
    expect(open.left).toEqual([]);
    expect(open.factory.last.closedWith?.code).toBe(1000);
  });
});
