import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ActiveSessionJson, ParticipantMode } from '@postern/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBackend } from '../../backend/sqlite.js';
import { SqliteAuditStore } from '../audit/audit.sqlite.js';
import { backgroundAuditWritten } from '../audit/emit.js';
import { LockWatcher } from '../../access-control/locks/lock-watcher.js';
import { LocksStore } from '../../access-control/locks/locks.store.js';
import { DirRecordingStore } from '../recordings/recording-store.js';
import type { LiveSession, LiveSessionInit } from './live-session.js';
import { MemoryChannel } from './memory-channel.testkit.js';
import type { Party } from './party.js';
import { SessionHub } from './session-hub.js';

// Live sessions over a channel that is not SSH (MemoryChannel): parties, join, locks, limits,
// audit and the recording work for any channel; a session without a terminal keeps all of it
// but the screen mirror, joins and the terminal recording.

/** A party that keeps what it is sent. */
class KeepingParty implements Party {
  readonly roles = ['access'];
  bytes: Buffer[] = [];
  events: Record<string, unknown>[] = [];
  sessions: ActiveSessionJson[] = [];
  ended: string | undefined;
  constructor(
    readonly id: string,
    readonly user: string,
    readonly mode: ParticipantMode,
  ) {}
  output(chunk: Uint8Array) {
    this.bytes.push(Buffer.from(chunk));
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

let dir: string;
let backend: SqliteBackend;
let locks: LockWatcher;
let audit: SqliteAuditStore;
let recordings: DirRecordingStore;
let hub: SessionHub;
const clock = { now: 0 };
/** Every session started, so their recordings are sealed before the directory goes. */
const started: LiveSession[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-channel-'));
  clock.now = Date.now();
  backend = new SqliteBackend(path.join(dir, 'state.db'), { pollIntervalMs: 20 });
  locks = new LockWatcher(backend, () => clock.now);
  await locks.start();
  audit = new SqliteAuditStore(path.join(dir, 'audit.db'), 'c');
  recordings = new DirRecordingStore(path.join(dir, 'recordings'));
  const now = () => clock.now;
  const policy = { store: recordings, onFailure: 'fail_closed' as const };
  hub = new SessionHub({ backend, audit, locks, now, checkIntervalMs: 10, recordings: policy });
  await hub.start();
});

afterEach(async () => {
  await hub.close();
  await Promise.all(started.splice(0).map((s) => s.recordingDone));
  await locks.close();
  await backgroundAuditWritten();
  await audit.close();
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

function start(overrides: Partial<LiveSessionInit> = {}) {
  const channel = new MemoryChannel();
  const session = hub.create({
    kind: 'ssh',
    terminal: { w: 80, h: 24 },
    owner: { user: 'alice', roles: ['access'] },
    login: 'root',
    node: { id: 'n1', hostname: 'web-1', addr: '127.0.0.21:22' },
    clusterName: 'c',
    proxyId: hub.proxyId,
    traceId: '',
    command: '',
    expiresAt: clock.now + 3_600_000,
    idleTimeoutMs: 0,
    channel,
    ...overrides,
  });
  started.push(session);
  return { session, channel };
}

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** The session's audit events, oldest first, once every background write is done. */
async function auditOf(session: LiveSession) {
  await backgroundAuditWritten();
  const { events } = await audit.search({
    from: new Date(0),
    to: new Date(Date.now() + 60_000),
    limit: 100,
    order: 'asc',
  });
  return events.filter((e) => e.sid === session.id);
}

const lockUser = (user: string, message: string) =>
  new LocksStore(backend).create({
    kind: 'lock',
    version: 'v2',
    metadata: { name: randomUUID() },
    spec: { target: { user }, message, createdBy: 'test', createdAt: new Date().toISOString() },
  });

describe('a live session over a memory channel', () => {
  it('fans output out to two parties; a joiner gets the screen first; peers type', async () => {
    const { session, channel } = start();
    const owner = new KeepingParty('o', 'alice', 'peer');
    await session.join(owner);
    channel.print('first line\r\nprompt$ ');
    const observer = new KeepingParty('b', 'bob', 'observer');
    const joining = session.join(observer);
    channel.print('after');
    await joining;
    expect(owner.text()).toBe('first line\r\nprompt$ after');
    const seen = observer.text();
    expect(seen).toContain('first line');
    expect(seen.indexOf('first line')).toBeLessThan(seen.lastIndexOf('after'));
    expect(owner.events).toContainEqual({ event: 'session.join', user: 'bob', mode: 'observer' });
    session.input('o', 'ls\r');
    session.input('b', 'rm -rf /\r');
    expect(channel.readInput()).toBe('ls\r');
    session.resize('o', 100, 30);
    expect(channel.size).toEqual({ w: 100, h: 30 });
    await until(() => hub.list()[0]?.terminal.w === 100, 'the tracker after the resize');
    expect(hub.list()[0]).toMatchObject({ kind: 'ssh', terminal: { w: 100, h: 30 } });
    expect(hub.list()[0]?.parties.map((p) => p.user)).toEqual(['alice', 'bob']);

    channel.exitWith({ code: 3 });
    expect(owner.ended).toBe('exited with code 3');
    expect(observer.ended).toBe('exited with code 3');
    expect(session.exit).toEqual({ code: 3, signal: '' });
    const codes = (await auditOf(session)).map((e) => e.code);
    expect(codes).toEqual(['T2000I', 'T2001I', 'T2002I', 'T2004I']);
  });

  it('writes the recording of what the parties saw', async () => {
    const { session, channel } = start();
    await session.join(new KeepingParty('o', 'alice', 'peer'));
    channel.print('recorded output\r\n');
    channel.exitWith({ code: 0 });
    await session.recordingDone;
    const cast = gunzipSync(await readFile(recordings.file(session.id, 'cast.gz'))).toString();
    const [header, ...events] = cast.split('\n').filter(Boolean);
    expect(JSON.parse(header!)).toMatchObject({ version: 2, width: 80, height: 24 });
    expect(events.map((e) => JSON.parse(e) as unknown[])).toContainEqual([
      0,
      'o',
      'recorded output\r\n',
    ]);
    const end = (await auditOf(session)).find((e) => e.code === 'T2004I');
    expect(end).toMatchObject({ session_recording: 'on', participants: ['alice'] });
  });

  it('ends on a lock with its reason, and the channel is closed', async () => {
    const { session, channel } = start();
    const owner = new KeepingParty('o', 'alice', 'peer');
    await session.join(owner);
    await lockUser('alice', 'incident 7');
    await until(() => session.isEnded, 'the lock to end the session');
    expect(owner.ended).toMatch(/^locked: .*incident 7/);
    expect(channel.closed).toBe(true);
    const end = (await auditOf(session)).find((e) => e.code === 'T2004I');
    expect(end?.reason).toBe(owner.ended);
  });

  it('ends at max_session_ttl and after client_idle_timeout', async () => {
    const expiring = start({ expiresAt: clock.now + 5_000 });
    const idle = start({ idleTimeoutMs: 60_000 });
    await expiring.session.join(new KeepingParty('o', 'alice', 'peer'));
    await idle.session.join(new KeepingParty('o', 'alice', 'peer'));
    clock.now += 40_000;
    idle.session.input('o', 'x');
    await until(() => expiring.session.isEnded, 'the TTL');
    expect(expiring.session.endReason).toBe('session expired (max_session_ttl)');
    clock.now += 59_000;
    await new Promise((r) => setTimeout(r, 50));
    expect(idle.session.isEnded).toBe(false);
    clock.now += 1_000;
    await until(() => idle.session.isEnded, 'the idle timeout');
    expect(idle.session.endReason).toBe('idle for longer than client_idle_timeout');
    expect(idle.channel.closed).toBe(true);
  });
});

describe('a live session without a terminal', () => {
  const database = { kind: 'db' as const, terminal: undefined, recordSession: 'strict' as const };

  it('passes bytes as they are, turns joiners away and has no recording', async () => {
    const { session, channel } = start(database);
    const client = new KeepingParty('o', 'alice', 'peer');
    await session.join(client);
    channel.print(Buffer.from([0x51, 0xe2])); // a cut character stays a byte stream here
    expect(Buffer.concat(client.bytes)).toEqual(Buffer.from([0x51, 0xe2]));
    const joiner = new KeepingParty('b', 'bob', 'observer');
    await session.join(joiner);
    expect(joiner.ended).toBe('a db session without a terminal cannot be joined');
    session.resize('o', 100, 30);
    expect(channel.size).toBeUndefined();
    await until(() => hub.list().length === 1, 'the tracker');
    expect(hub.list()[0]).toMatchObject({ kind: 'db', terminal: { w: 0, h: 0 } });
    channel.hangUp();
    await session.recordingDone;
    await expect(readFile(recordings.file(session.id, 'cast.gz'))).rejects.toThrow(/ENOENT/);
    const events = await auditOf(session);
    expect(events.map((e) => e.code)).toEqual(['T2000I', 'T2004I']);
    expect(events[0]).toMatchObject({ proto: 'db', user: 'alice' });
    expect(events[0]).not.toHaveProperty('size');
    expect(events[1]).toMatchObject({ proto: 'db', session_recording: 'off' });
  });

  it('still ends on a lock and at max_session_ttl, audited', async () => {
    const locked = start(database);
    const expiring = start({ ...database, expiresAt: clock.now + 5_000 });
    await locked.session.join(new KeepingParty('o', 'alice', 'peer'));
    await expiring.session.join(new KeepingParty('o', 'alice', 'peer'));
    clock.now += 5_000;
    await until(() => expiring.session.isEnded, 'the TTL');
    expect(expiring.session.endReason).toBe('session expired (max_session_ttl)');
    expect(locked.session.isEnded).toBe(false);
    await lockUser('alice', 'db maintenance');
    await until(() => locked.session.isEnded, 'the lock');
    expect(locked.session.endReason).toMatch(/^locked: .*db maintenance/);
    for (const { session } of [locked, expiring]) {
      const end = (await auditOf(session)).find((e) => e.code === 'T2004I');
      expect(end).toMatchObject({ proto: 'db', reason: session.endReason });
    }
  });
});
