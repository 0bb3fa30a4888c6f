import { encodeEnvelope, terminalMessageTypes as T } from '@postern/contracts';
import { describe, expect, it, vi } from 'vitest';
import { sessionFixtures } from '../../sessions/fixtures';
import { fakeSockets, type FakeSocket } from './fakeSocket';
import { OutputBatcher, microtaskScheduler } from './OutputBatcher';
import { createTraceparent, isTraceparent } from './traceparent';
import { terminalUrl } from './terminalUrl';
import {
  TtyClient,
  parseSize,
  proxyWentAway,
  type TtyClientOptions,
  type TtyCloseInfo,
} from './TtyClient';

function connect(options: Partial<TtyClientOptions> = {}) {
  const factory = fakeSockets();
  const client = new TtyClient({
    url: 'wss://proxy.example.com/v1/webapi/sites/root/connect/ws?params=x',
    token: 'bearer-1',
    createSocket: factory.create,
    initialSize: { w: 80, h: 24 },
    ...options,
  });
  const output: string[] = [];
  const events: string[] = [];
  client.on('output', (text) => output.push(text));
  client.on('notice', (text) => events.push(`notice ${text}`));
  client.on('error', (text) => events.push(`error ${text}`));
  client.on('close', (info) => events.push(`close ${info.code} ${info.reason}`));
  client.connect();
  return { client, socket: factory.last, output, events };
}

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('TtyClient authentication', () => {
  it('sends the token as the first (text) frame and nothing else before ok', () => {
    const { client, socket } = connect();
    expect(socket.binaryType).toBe('arraybuffer');
    expect(client.state).toBe('connecting');
    client.send('ls\r'); // typed before the socket opened: dropped, never queued ahead of auth
    client.resize({ w: 100, h: 30 });
    socket.open();
    expect(client.state).toBe('authenticating');
    client.send('pwd\r');
    expect(socket.sent).toEqual([JSON.stringify({ token: 'bearer-1' })]);

    const opened = vi.fn();
    client.on('open', opened);
    socket.receiveText(JSON.stringify({ type: 'create_session_response', status: 'ok' }));
    expect(opened).toHaveBeenCalledOnce();
    expect(client.state).toBe('open');
    // The size that changed while connecting goes out once the session is open.
    expect(socket.payloads(T.resize)).toEqual([
      JSON.stringify({ event: 'resize', width: 100, height: 30, size: '100:30' }),
    ]);
    client.send('pwd\r');
    expect(socket.payloads(T.raw)).toEqual(['pwd\r']);
  });

  it('never puts the token in the URL', () => {
    const url = terminalUrl(
      { protocol: 'https:', host: 'proxy.example.com:3080' },
      'root',
      { server_id: 'node-1', login: 'root', term: { w: 80, h: 24 } },
      '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01',
    );
    expect(url).toBe(
      'wss://proxy.example.com:3080/v1/webapi/sites/root/connect/ws?params=' +
        encodeURIComponent('{"server_id":"node-1","login":"root","term":{"w":80,"h":24}}') +
        '&traceparent=00-0123456789abcdef0123456789abcdef-0123456789abcdef-01',
    );
    const join = new URL(
      terminalUrl(
        { protocol: 'http:', host: 'localhost:3080' },
        'root',
        { server_id: '', login: '', term: { w: 80, h: 24 }, sid: 'abc', mode: 'observer' },
        createTraceparent(),
      ),
    );
    expect(join.protocol).toBe('ws:');
    expect(JSON.parse(join.searchParams.get('params') ?? '')).toEqual({
      server_id: '',
      login: '',
      term: { w: 80, h: 24 },
      sid: 'abc',
      mode: 'observer',
    });
    expect(isTraceparent(join.searchParams.get('traceparent') ?? '')).toBe(true);
  });

  it('a refused session closes with the server’s message and sends nothing more', () => {
    const { client, socket, events } = connect();
    socket.open();
    socket.receiveText(
      JSON.stringify({
        type: 'create_session_response',
        status: 'error',
        message: 'access denied',
      }),
    );
    expect(client.state).toBe('closed');
    expect(events).toEqual(['error access denied', 'close 1000 access denied']);
    expect(socket.closedWith?.code).toBe(1000);
    expect(socket.sent).toHaveLength(1);
  });

  it('refuses binary frames that arrive before the session is authorised', () => {
    const { client, socket, output } = connect();
    socket.open();
    socket.receive(T.raw, 'sneaky');
    expect(output).toEqual([]);
    expect(client.state).toBe('closed');
  });

  it('reports a socket that never opened as a failure to connect', () => {
    const { socket, events } = connect();
    socket.serverClose(1006);
    expect(events).toEqual(['close 1006 could not connect to the server (code 1006)']);
  });
});

describe('TtyClient frames', () => {
  it('encodes keystrokes, resizes and join-ready as envelopes', () => {
    const { client, socket } = connect();
    socket.accept();
    client.send('é\x1b[A');
    client.resize({ w: 80, h: 24 }); // the size the URL already announced: not sent again
    client.resize({ w: 120, h: 40 });
    client.resize({ w: 0, h: 40 }); // invalid: ignored
    client.readyToJoin();
    const frames = socket.sent.slice(1) as Uint8Array[];
    expect(Array.from(frames[0]!)).toEqual(Array.from(encodeEnvelope('r', 'é\x1b[A')));
    expect(socket.envelopes().map((e) => e.type)).toEqual(['r', 'w', 'j']);
    expect(JSON.parse(socket.payloads(T.resize)[0]!)).toEqual({
      event: 'resize',
      width: 120,
      height: 40,
      size: '120:40',
    });
  });

  it('hands a per-session MFA challenge over, and sends the answer back on n', () => {
    const { client, socket, events } = connect();
    const challenges: unknown[] = [];
    client.on('mfaChallenge', (challenge) => challenges.push(challenge));
    socket.accept();
    socket.receive(T.mfaChallenge, JSON.stringify({ totp_challenge: true }));
    expect(challenges).toEqual([{ totp_challenge: true }]);
    client.answerMfa({ totp_code: '123456' });
    expect(socket.payloads(T.mfaChallenge)).toEqual([JSON.stringify({ totp_code: '123456' })]);
    // A challenge that cannot be read is said, not swallowed.
    socket.receive(T.mfaChallenge, '{"webauthn_challenge": 5}');
    expect(challenges).toHaveLength(1);
    expect(events).toContain('error the proxy asked for an MFA check this page cannot read');
  });

  it('decodes output, keeping a multi-byte character split across frames', () => {
    const { socket, output } = connect();
    socket.accept();
    const bytes = utf8('é€😀!');
    // Split inside é (2 bytes), inside € (3 bytes) and inside 😀 (4 bytes).
    socket.receive(T.raw, bytes.subarray(0, 1));
    socket.receive(T.raw, bytes.subarray(1, 3));
    socket.receive(T.raw, bytes.subarray(3, 7));
    socket.receive(T.raw, bytes.subarray(7));
    expect(output.join('')).toBe('é€😀!');
    expect(output.join('')).not.toContain('\ufffd');
  });

  it('hands over session data, join, leave, lost, back and still-connecting notices and other parties’ sizes', () => {
    const { client, socket, events } = connect();
    const sessions = vi.fn();
    const resizes = vi.fn();
    client.on('session', sessions);
    client.on('resize', resizes);
    socket.accept();
    socket.receive(T.sessionData, JSON.stringify({ session: sessionFixtures[0] }));
    expect(sessions).toHaveBeenCalledWith(expect.objectContaining({ id: sessionFixtures[0]!.id }));
    socket.receive(
      T.audit,
      JSON.stringify({ event: 'session.join', user: 'alice', mode: 'observer' }),
    );
    socket.receive(T.audit, JSON.stringify({ event: 'session.leave', user: 'alice' }));
    socket.receive(T.audit, JSON.stringify({ event: 'session.connection_lost', user: 'bob' }));
    socket.receive(T.audit, JSON.stringify({ event: 'session.resumed', user: 'bob' }));
    socket.receive(T.audit, JSON.stringify({ event: 'session.starting', elapsed_ms: 2000 }));
    socket.receive(T.audit, JSON.stringify({ event: 'resize', size: '80:24', user: 'me' }));
    socket.receive(T.audit, JSON.stringify({ event: 'resize', size: '132:43', user: 'bob' }));
    socket.receive(T.error, 'node unreachable');
    expect(events).toEqual([
      'notice [alice joined as observer]',
      'notice [alice left]',
      'notice [bob lost the connection]',
      'notice [bob is back]',
      'notice [still connecting to the server…]',
      'error node unreachable',
    ]);
    expect(resizes.mock.calls).toEqual([[{ w: 132, h: 43 }]]);
  });

  it('a session end closes the socket with 1000 and says why', () => {
    const { client, socket, events } = connect();
    const ended = vi.fn();
    client.on('end', ended);
    socket.accept();
    socket.receive(T.sessionEnd);
    expect(ended).toHaveBeenCalledWith('session ended');
    expect(socket.closedWith).toEqual({ code: 1000, reason: 'session ended' });
    expect(events).toEqual(['close 1000 session ended']);
  });

  it('reads the end reason from JSON or plain text', () => {
    for (const [payload, reason] of [
      [JSON.stringify({ reason: 'too slow to keep up' }), 'too slow to keep up'],
      ['locked: under review', 'locked: under review'],
      [JSON.stringify({}), 'session ended'],
    ] as const) {
      const { socket, events } = connect();
      socket.accept();
      socket.receive(T.sessionEnd, payload);
      expect(events).toEqual([`close 1000 ${reason}`]);
    }
  });

  it('a socket dropped by the server reports its reason once', () => {
    const { client, socket, events } = connect();
    socket.accept();
    socket.serverClose(4001, 'locked: under review');
    client.close();
    expect(events).toEqual(['close 4001 locked: under review']);
  });

  it('tells a proxy that went away from a session that ended', () => {
    const closeOf = (play: (socket: FakeSocket, client: TtyClient) => void) => {
      const { client, socket } = connect();
      let info: TtyCloseInfo | undefined;
      client.on('close', (i) => (info = i));
      play(socket, client);
      if (!info) throw new Error('no close');
      return { ...info, proxyWentAway: proxyWentAway(info) };
    };
    // The proxy shuts down: its session end, then 1001.
    expect(
      closeOf((socket) => {
        socket.accept();
        socket.receive(T.sessionEnd, JSON.stringify({ reason: 'the proxy is shutting down' }));
      }),
    ).toMatchObject({
      reason: 'the proxy is shutting down',
      endedBy: 'server',
      proxyWentAway: true,
    });
    // A 1001 close without a session end.
    expect(
      closeOf((socket) => {
        socket.accept();
        socket.serverClose(1001, '');
      }),
    ).toMatchObject({ code: 1001, endedBy: 'socket', proxyWentAway: true });
    // The proxy died: the connection drops with no close frame, open or not yet.
    expect(
      closeOf((socket) => {
        socket.accept();
        socket.serverClose(1006, '');
      }),
    ).toMatchObject({
      reason: 'connection closed (code 1006)',
      endedBy: 'socket',
      proxyWentAway: true,
    });
    expect(closeOf((socket) => socket.serverClose(1006, ''))).toMatchObject({
      proxyWentAway: true,
    });
    // Sessions that ended, refusals, a lock's close and the tab closing are not the proxy's doing.
    for (const reason of ['exited with code 0', 'exited with code 1', 'locked: under review']) {
      expect(
        closeOf((socket) => {
          socket.accept();
          socket.receive(T.sessionEnd, JSON.stringify({ reason }));
        }),
      ).toMatchObject({ reason, endedBy: 'server', proxyWentAway: false });
    }
    expect(
      closeOf((socket) => {
        socket.open();
        socket.receiveText(
          JSON.stringify({ type: 'create_session_response', status: 'error', message: 'denied' }),
        );
      }),
    ).toMatchObject({ endedBy: 'client', proxyWentAway: false });
    expect(
      closeOf((socket) => {
        socket.accept();
        socket.serverClose(4001, 'locked: under review');
      }),
    ).toMatchObject({ endedBy: 'socket', proxyWentAway: false });
    expect(
      closeOf((socket, client) => {
        socket.accept();
        client.close();
      }),
    ).toMatchObject({ endedBy: 'client', proxyWentAway: false });
  });

  it('closing the tab closes the socket with code 1000', () => {
    const { client, socket, events } = connect();
    socket.accept();
    client.close();
    expect(socket.closedWith?.code).toBe(1000);
    expect(client.state).toBe('closed');
    expect(events).toEqual(['close 1000 closed']);
    client.send('x'); // after close: nothing
    expect(socket.payloads(T.raw)).toEqual([]);
  });

  it('an observer sends no keystrokes and no resizes', () => {
    const { client, socket } = connect({ readOnly: true });
    socket.accept();
    client.send('rm -rf /\r');
    client.resize({ w: 200, h: 60 });
    client.readyToJoin();
    expect(socket.envelopes().map((e) => e.type)).toEqual(['j']);
  });

  it('asks for a moderated file transfer on f and decides on t, once the session is open', () => {
    const { client, socket } = connect();
    const request = {
      event: 'file_transfer_request',
      download: false,
      location: '/tmp',
      filename: 'notes.txt',
    } as const;
    // Not open yet: nothing goes out, and the caller hears so (no answer will come).
    expect(client.requestFileTransfer(request)).toBe(false);
    socket.accept();
    expect(client.requestFileTransfer(request)).toBe(true);
    expect(client.decideFileTransfer('req-1', false)).toBe(true);
    expect(socket.envelopes().map((e) => e.type)).toEqual(['f', 't']);
    expect(JSON.parse(socket.payloads(T.fileTransferRequest)[0]!)).toEqual(request);
    expect(JSON.parse(socket.payloads(T.fileTransferDecision)[0]!)).toEqual({
      event: 'file_transfer_decision',
      requestId: 'req-1',
      approved: false,
    });
  });

  it("hands a file transfer request's events over typed, and other audit events as they were", () => {
    const { client, socket, events } = connect();
    const transfers = vi.fn();
    const audits = vi.fn();
    client.on('fileTransfer', transfers);
    client.on('audit', audits);
    socket.accept();
    const approve = {
      event: 'file_transfer_request_approve',
      requestId: 'req-1',
      requester: 'alice',
      location: '/etc/hosts',
      download: true,
      approvers: ['bob'],
      approved: true,
    };
    socket.receive(T.audit, JSON.stringify(approve));
    socket.receive(T.audit, JSON.stringify({ event: 'session.leave', user: 'carol' }));
    expect(transfers.mock.calls).toEqual([[approve]]);
    expect(audits.mock.calls).toEqual([[{ event: 'session.leave', user: 'carol' }]]);
    expect(events).toEqual(['notice [carol left]']);
  });

  it("a moderator sends only t, which ends the session; an observer's t goes nowhere", () => {
    const moderator = connect({ readOnly: true, moderator: true });
    moderator.socket.accept();
    moderator.client.send('ls\r');
    moderator.client.send('t');
    expect(moderator.socket.payloads(T.raw)).toEqual(['t']);
    const observer = connect({ readOnly: true });
    observer.socket.accept();
    observer.client.send('t');
    expect(observer.socket.payloads(T.raw)).toEqual([]);
  });
});

describe('TtyClient flow control', () => {
  /** A terminal whose write callbacks run only when the test says so. */
  function manualSink() {
    const writes: { data: string; done: () => void }[] = [];
    return {
      writes,
      write: (data: string, done: () => void) => writes.push({ data, done }),
      finishAll: () => writes.splice(0).forEach((w) => w.done()),
    };
  }

  const ackTotal = (socket: FakeSocket) =>
    socket.payloads(T.outputAck).reduce((sum, p) => sum + Number(p), 0);

  it('acknowledges only after the write callback, summing to the bytes received', () => {
    const { client, socket } = connect();
    socket.accept();
    const sink = manualSink();
    const ticks: (() => void)[] = [];
    const batcher = new OutputBatcher({
      sink,
      acks: client,
      schedule: (run) => ticks.push(run),
    });
    client.on('output', (text, bytes) => batcher.push(text, bytes));
    const payloads = ['hello ', 'wörld ', '€€€', utf8('😀').subarray(0, 2), utf8('😀').subarray(2)];
    let received = 0;
    for (const p of payloads) {
      socket.receive(T.raw, p);
      received += typeof p === 'string' ? utf8(p).length : p.length;
    }
    expect(ticks).toHaveLength(1); // one write per frame, however many messages came
    expect(socket.payloads(T.outputAck)).toEqual([]);
    ticks.shift()!();
    expect(sink.writes.map((w) => w.data)).toEqual(['hello wörld €€€😀']);
    expect(socket.payloads(T.outputAck)).toEqual([]); // written, not yet processed
    sink.finishAll();
    expect(socket.payloads(T.outputAck)).toEqual([String(received)]);
    expect(client.counters).toEqual({ received, acknowledged: received, pendingAck: 0 });
  });

  /** An open client whose output goes through a batcher on ticks the test runs. */
  function batched() {
    const { client, socket } = connect();
    socket.accept();
    const sink = manualSink();
    const ticks: (() => void)[] = [];
    const batcher = new OutputBatcher({ sink, acks: client, schedule: (run) => ticks.push(run) });
    client.on('output', (text, bytes) => batcher.push(text, bytes));
    return { client, socket, sink, ticks };
  }

  it('acks every 256 KiB while output keeps coming, and the rest once the terminal caught up', () => {
    const { socket, sink, ticks } = batched();
    const frame = 'x'.repeat(128 * 1024);
    // A flood: each message is its own batch, and the terminal lags behind by a few of them.
    for (let i = 0; i < 5; i++) {
      socket.receive(T.raw, frame);
      ticks.shift()!();
    }
    expect(sink.writes.map((w) => w.data.length)).toEqual(Array(5).fill(128 * 1024));
    expect(socket.payloads(T.outputAck)).toEqual([]); // nothing processed yet
    sink.writes[0]!.done();
    expect(socket.payloads(T.outputAck)).toEqual([]); // 128 KiB, more still queued
    sink.writes[1]!.done();
    expect(socket.payloads(T.outputAck)).toEqual(['262144']);
    sink.writes[2]!.done();
    sink.writes[3]!.done();
    expect(socket.payloads(T.outputAck)).toEqual(['262144', '262144']);
    sink.writes[4]!.done();
    expect(socket.payloads(T.outputAck)).toEqual(['262144', '262144', '131072']); // caught up
    expect(ackTotal(socket)).toBe(5 * 128 * 1024);
  });

  it('acks a small output as soon as it is processed', () => {
    const { socket, sink, ticks } = batched();
    socket.receive(T.raw, 'a');
    ticks.shift()!();
    socket.receive(T.raw, 'bc');
    ticks.shift()!();
    sink.writes[0]!.done();
    expect(socket.payloads(T.outputAck)).toEqual([]); // 'bc' is still being written
    sink.writes[1]!.done();
    expect(socket.payloads(T.outputAck)).toEqual(['3']);
  });

  it('never acknowledges more than was received', () => {
    const { client, socket } = connect();
    socket.accept();
    socket.receive(T.raw, 'abc');
    client.processed(10);
    client.flushAck();
    expect(socket.payloads(T.outputAck)).toEqual(['3']);
    client.flushAck();
    expect(socket.payloads(T.outputAck)).toEqual(['3']);
  });

  it('the microtask scheduler writes the pieces of one task as one batch, before the next task', async () => {
    const { client, socket } = connect();
    socket.accept();
    const sink = manualSink();
    const batcher = new OutputBatcher({ sink, acks: client, schedule: microtaskScheduler });
    client.on('output', (text, bytes) => batcher.push(text, bytes));
    socket.receive(T.raw, 'one ');
    socket.receive(T.raw, 'two');
    expect(sink.writes).toEqual([]); // not inside the task
    await Promise.resolve();
    expect(sink.writes.map((w) => w.data)).toEqual(['one two']);
    socket.receive(T.raw, '!');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sink.writes.map((w) => w.data)).toEqual(['one two', '!']);
  });
});

describe('parseSize', () => {
  it('reads W:H and refuses nonsense', () => {
    expect(parseSize('120:40')).toEqual({ w: 120, h: 40 });
    expect(parseSize('0:40')).toBeUndefined();
    expect(parseSize('5000:40')).toBeUndefined();
    expect(parseSize('a:b')).toBeUndefined();
  });
});
