import {
  terminalFlowControl,
  type ActiveSessionJson,
  type ParticipantMode,
} from '@postern/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditStore } from '../audit/index.js';
import { LiveSession, type LiveSessionInit } from './live-session.js';
import type { Party } from './party.js';
import { FakeChannel, testSessionInit } from './live-session.testkit.js';
import { ScreenMirror } from './screen-mirror.js';

class RecordingParty implements Party {
  output: Party['output'];
  bytes: Buffer[] = [];
  events: Record<string, unknown>[] = [];
  sessions: ActiveSessionJson[] = [];
  ended: string | undefined;
  constructor(
    readonly id: string,
    readonly user: string,
    readonly mode: ParticipantMode,
    readonly roles: string[] = ['access'],
  ) {
    this.output = (chunk) => void this.bytes.push(Buffer.from(chunk));
  }
  event(e: Record<string, unknown>) {
    this.events.push(e);
  }
  sessionData(s: ActiveSessionJson) {
    this.sessions.push(s);
  }
  end(reason: string) {
    this.ended = reason;
  }
  text() {
    return Buffer.concat(this.bytes).toString('utf8');
  }
}

const audited: AuditEvent[] = [];
const audit = {
  emit: async (e: Record<string, unknown>) => {
    audited.push(e as AuditEvent);
    return e as AuditEvent;
  },
} as unknown as AuditStore;

const mirrors: ScreenMirror[] = [];
afterEach(async () => {
  audited.length = 0;
  await Promise.all(mirrors.splice(0).map((m) => m.stop()));
});

function makeSession(overrides: Partial<LiveSessionInit> = {}, clock = { now: 1_000 }) {
  const channel = new FakeChannel();
  const mirror = new ScreenMirror();
  mirrors.push(mirror);
  const ended: LiveSession[] = [];
  const session = new LiveSession(testSessionInit(channel, clock.now, overrides), {
    audit,
    mirror,
    now: () => clock.now,
    onChange: () => undefined,
    onEnd: (s) => void ended.push(s),
  });
  return { session, channel, ended, clock };
}

describe('LiveSession', () => {
  it('pauses the channel above pauseAbove unacknowledged and resumes below resumeBelow', async () => {
    const { pauseAbove, resumeBelow } = terminalFlowControl;
    const KiB = 1024;
    const { session, channel } = makeSession();
    const owner = new RecordingParty('o', 'alice', 'peer');
    await session.join(owner);
    channel.emit('data', Buffer.alloc(pauseAbove - 100 * KiB, 'y'));
    expect(channel.paused).toBe(false);
    channel.emit('data', Buffer.alloc(200 * KiB, 'y')); // pauseAbove + 100 KiB sent
    expect(channel.paused).toBe(true);
    session.ack('o', pauseAbove - resumeBelow);
    expect(channel.paused).toBe(true); // resumeBelow + 100 KiB pending: above the resume mark
    session.ack('o', 150 * KiB);
    expect(channel.paused).toBe(false);
  });

  it('lets peers type and ignores observers; a moderator may end the session with t', async () => {
    const { session, channel } = makeSession();
    await session.join(new RecordingParty('o', 'alice', 'peer'));
    const observer = new RecordingParty('b', 'bob', 'observer');
    await session.join(observer);
    session.input('o', 'ls\r');
    session.input('b', 'rm -rf /\r');
    expect(channel.written).toEqual(['ls\r']);
    const moderator = new RecordingParty('m', 'carol', 'moderator');
    await session.join(moderator);
    session.input('m', 't');
    expect(session.isEnded).toBe(true);
    expect(session.endReason).toBe('terminated by moderator carol');
    expect(observer.ended).toBe('terminated by moderator carol');
  });

  it('gives a joiner the current screen first, then live output, and tells everyone', async () => {
    const { session, channel } = makeSession();
    const owner = new RecordingParty('o', 'alice', 'peer');
    await session.join(owner);
    channel.emit('data', Buffer.from('\x1b[2J\x1b[Hfirst screen line\r\nprompt$ '));
    const observer = new RecordingParty('b', 'bob', 'observer');
    const joining = session.join(observer);
    channel.emit('data', Buffer.from('after'));
    await joining;
    const seen = observer.text();
    expect(seen).toContain('first screen line');
    expect(seen.indexOf('first screen line')).toBeLessThan(seen.lastIndexOf('after'));
    expect(observer.events[0]).toEqual({ event: 'resize', size: '80:24' });
    expect(owner.events).toContainEqual({ event: 'session.join', user: 'bob', mode: 'observer' });
    expect(audited.map((e) => e.code)).toContain('T2001I');
    expect(owner.sessions.at(-1)?.parties.map((p) => p.user)).toEqual(['alice', 'bob']);
  });

  it('never cuts a character between frames', async () => {
    const { session, channel } = makeSession();
    const owner = new RecordingParty('o', 'alice', 'peer');
    await session.join(owner);
    const text = Buffer.from('héllo ✓ 🙂');
    for (let i = 0; i < text.length; i++) channel.emit('data', text.subarray(i, i + 1));
    for (const chunk of owner.bytes) expect(chunk.toString('utf8')).not.toContain('\uFFFD');
    expect(owner.text()).toBe('héllo ✓ 🙂');
  });

  it('propagates a peer resize to the node and the other parties, refusing observers', async () => {
    const { session, channel } = makeSession();
    await session.join(new RecordingParty('o', 'alice', 'peer'));
    const observer = new RecordingParty('b', 'bob', 'observer');
    await session.join(observer);
    session.resize('b', 10, 10);
    expect(channel.window).toBeUndefined();
    session.resize('o', 120, 40);
    expect(channel.window).toEqual([120, 40]);
    expect(observer.events).toContainEqual({ event: 'resize', size: '120:40' });
    expect(audited.find((e) => e.code === 'T2002I')).toMatchObject({ size: '120:40' });
  });

  it('ends at max_session_ttl and after client_idle_timeout, with the reason audited', async () => {
    const expiring = makeSession({ expiresAt: 5_000 });
    await expiring.session.join(new RecordingParty('o', 'alice', 'peer'));
    expiring.session.checkLimits(4_999);
    expect(expiring.session.isEnded).toBe(false);
    expiring.session.checkLimits(5_000);
    expect(expiring.session.endReason).toBe('session expired (max_session_ttl)');

    const idle = makeSession({ idleTimeoutMs: 60_000 });
    await idle.session.join(new RecordingParty('o', 'alice', 'peer'));
    idle.clock.now = 50_000;
    idle.session.input('o', 'x');
    idle.session.checkLimits(100_000);
    expect(idle.session.isEnded).toBe(false);
    idle.session.checkLimits(110_000);
    expect(idle.session.endReason).toContain('client_idle_timeout');
    const end = audited.filter((e) => e.code === 'T2004I');
    expect(end.map((e) => e.reason)).toEqual([
      'session expired (max_session_ttl)',
      'idle for longer than client_idle_timeout',
    ]);
    expect(idle.channel.closed).toBe(true);
  });

  it('ends when the last peer leaves, and when the node closes the channel', async () => {
    const left = makeSession();
    await left.session.join(new RecordingParty('o', 'alice', 'peer'));
    await left.session.join(new RecordingParty('b', 'bob', 'observer'));
    left.session.leave('o');
    expect(left.session.endReason).toBe('all participants left');
    expect(left.ended).toHaveLength(1);

    const exited = makeSession();
    const owner = new RecordingParty('o', 'alice', 'peer');
    await exited.session.join(owner);
    exited.channel.emit('exit', 0);
    exited.channel.emit('close');
    expect(owner.ended).toBe('exited with code 0');
  });
});
