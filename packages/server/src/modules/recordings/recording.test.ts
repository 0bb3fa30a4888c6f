import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ActiveSessionJson, RecordSessionMode } from '@postern/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditStore } from '../audit/index.js';
import { LiveSession, type RecordingPolicy } from '../sessions/live-session.js';
import type { Party } from '../sessions/party.js';
import { FakeChannel, testSessionInit } from '../sessions/live-session.testkit.js';
import { ScreenMirror } from '../sessions/screen-mirror.js';
import { sha256Hex } from './recording-integrity.js';
import { verifyRecording } from './recording-verify.js';
import { DirRecordingStore, type RecordingIndex, type RecordingStore } from './recording-store.js';
import { CastEncoder } from './cast-encoder.js';
import { SessionRecorder } from './session-recorder.js';

/** A typist who only counts what it is sent. */
class Typist implements Party {
  readonly id: string = 'owner';
  readonly user: string = 'alice';
  readonly mode: Party['mode'] = 'peer';
  readonly roles = ['access'];
  output = () => undefined;
  event = () => undefined;
  sessionData = (_: ActiveSessionJson) => undefined;
  end = () => undefined;
}

/** Someone who joins after the owner, to watch. */
class Observer extends Typist {
  override readonly id = 'observer';
  override readonly user = 'bob';
  override readonly mode = 'observer' as const;
}

let dir: string;
const audited: AuditEvent[] = [];
const audit = {
  emit: async (e: Record<string, unknown>) => void audited.push(e as AuditEvent),
} as unknown as AuditStore;
const mirrors: ScreenMirror[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-rec-'));
});
afterEach(async () => {
  audited.length = 0;
  await Promise.all(mirrors.splice(0).map((m) => m.stop()));
  await rm(dir, { recursive: true, force: true });
});

function startSession(policy: RecordingPolicy | undefined, recordSession?: RecordSessionMode) {
  const clock = { now: 1_700_000_000_000 };
  const channel = new FakeChannel();
  const mirror = new ScreenMirror();
  mirrors.push(mirror);
  const session = new LiveSession(testSessionInit(channel, clock.now, { recordSession }), {
    audit,
    mirror,
    now: () => clock.now,
    onChange: () => undefined,
    onEnd: () => undefined,
    recordings: policy,
  });
  return { session, channel, clock, mirror };
}

const parseCast = (gz: Buffer) =>
  gunzipSync(gz)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('session recording', () => {
  it('writes an asciicast v2 gzip with output, resizes and a seekable keyframe', async () => {
    const store = new DirRecordingStore(dir);
    await store.init();
    const { session, channel, clock, mirror } = startSession({ store, onFailure: 'fail_closed' });
    await session.join(new Typist());
    channel.emit('data', Buffer.from('hello from before\r\n'));
    clock.now += 1_000;
    await session.join(new Observer());
    clock.now += 500;
    session.resize('owner', 100, 30);
    channel.emit('data', Buffer.from('é split: '));
    channel.emit('data', Buffer.from([0xe2, 0x82]));
    channel.emit('data', Buffer.from([0xac, 0x0a]));
    clock.now += 5_000;
    session.checkLimits(clock.now);
    await mirror.snapshot(session.id); // answered after the keyframe's snapshot
    clock.now += 500;
    channel.emit('data', Buffer.from('after the keyframe\r\n'));
    channel.emit('close');
    await session.recordingDone;

    const events = parseCast(await readFile(store.file(session.id, 'cast.gz')));
    expect(events[0]).toEqual({
      version: 2,
      width: 80,
      height: 24,
      timestamp: 1_700_000_000,
      env: { TERM: 'xterm-256color' },
      title: 'root@web-1',
    });
    expect(events.slice(1)).toEqual([
      [0, 'o', 'hello from before\r\n'],
      [1, 'm', 'bob joined (observer)'],
      [1.5, 'r', '100x30'],
      [1.5, 'o', 'é split: €\n'], // output at the same instant is one event
      [7, 'o', 'after the keyframe\r\n'],
    ]);

    const index = JSON.parse(
      await readFile(store.file(session.id, 'index.json'), 'utf8'),
    ) as RecordingIndex;
    expect(index).toMatchObject({ sid: session.id, sealed: true, incomplete: false });
    expect(index.durationMs).toBe(7_000);
    expect(index.participants).toEqual(['alice', 'bob']);
    // The player's timeline marks the join and the resize.
    expect(index.marks).toEqual([
      { t: 1, kind: 'join', label: 'bob joined (observer)' },
      { t: 1.5, kind: 'resize', label: '100x30' },
    ]);
    expect(index.keyframes).toHaveLength(1);
    const [key] = index.keyframes;
    const keyframes = await readFile(store.file(session.id, 'keyframes.jsonl'));
    const frame = JSON.parse(keyframes.subarray(key!.at, key!.at + key!.length).toString()) as {
      screen: string;
      cols: number;
      offset: number;
    };
    expect(frame).toMatchObject({ t: 6.5, cols: 100, rows: 30, offset: key!.offset });
    expect(frame.screen).toContain('hello from before');
    expect(frame.screen).not.toContain('after the keyframe');
    // The offset is where the events after the keyframe start in the uncompressed cast.
    const cast = gunzipSync(await readFile(store.file(session.id, 'cast.gz')));
    expect(cast.subarray(key!.offset).toString()).toBe('[7,"o","after the keyframe\\r\\n"]\n');
    expect(index.castBytes).toBe(cast.length);

    const end = audited.find((e) => e.code === 'T2004I');
    expect(end).toMatchObject({ session_recording: 'on', server_hostname: 'web-1' });
  });

  it('fail closed ends the session with a readable message', async () => {
    await writeFile(path.join(dir, 'file'), '');
    const store = new DirRecordingStore(path.join(dir, 'file', 'recordings'));
    const { session } = startSession({ store, onFailure: 'fail_closed' });
    await session.join(new Typist());
    await until(() => session.isEnded, 'the session to end');
    expect(session.endReason).toMatch(
      /^session recording failed: ENOTDIR.*; the session was ended$/,
    );
    expect(audited.find((e) => e.code === 'T2004I')).toMatchObject({
      reason: session.endReason,
      session_recording_error: expect.stringMatching(/ENOTDIR/),
    });
  });

  it('fail open keeps the session and emits a recording failure event', async () => {
    await writeFile(path.join(dir, 'file'), '');
    const store = new DirRecordingStore(path.join(dir, 'file', 'recordings'));
    const { session, channel } = startSession({ store, onFailure: 'fail_open' });
    await session.join(new Typist());
    await until(() => audited.some((e) => e.code === 'TPOS030E'), 'the failure event');
    expect(session.isEnded).toBe(false);
    expect(audited.find((e) => e.code === 'TPOS030E')).toMatchObject({
      event: 'session.recording.failed',
      sid: session.id,
      user: 'alice',
      reason: expect.stringMatching(/ENOTDIR/),
    });
    channel.emit('data', Buffer.from('still running'));
    expect(session.isEnded).toBe(false);
    session.terminate('done');
  });

  it('pauses the channel while the disk is far behind, and a failure open resumes it', async () => {
    // A disk that never finishes a write, until it fails.
    const cast = new Writable({ write: () => undefined });
    const store: RecordingStore = {
      init: async () => ({ sealed: [] }),
      create: (sid) => ({
        sid,
        cast,
        keyframes: new PassThrough(),
        chunks: new PassThrough(),
        seal: async () => undefined,
      }),
      readIndex: async () => undefined,
      openCast: async () => undefined,
      readKeyframe: async () => undefined,
      readChunkList: async () => undefined,
      openKeyframes: async () => undefined,
      listSealed: async () => [],
    };
    const { session, channel } = startSession({ store, onFailure: 'fail_open' });
    let paused = false;
    channel.pause = () => ((paused = true), channel);
    channel.resume = () => ((paused = false), channel);
    await session.join(new Typist());
    // The typist keeps up (acks at once), so only the recording can hold the channel back.
    for (let i = 0; i < 40; i++) {
      channel.emit('data', Buffer.alloc(256 * 1024, 'x'));
      session.ack('owner', 256 * 1024);
    }
    await until(() => paused, 'the channel to pause');
    cast.destroy(new Error('disk gone'));
    await until(() => !paused, 'the channel to resume');
    expect(session.isEnded).toBe(false);
    expect(audited.find((e) => e.code === 'TPOS030E')).toMatchObject({ reason: 'disk gone' });
    session.terminate('done');
  });

  it('record_session strict ends the session even with fail open', async () => {
    await writeFile(path.join(dir, 'file'), '');
    const store = new DirRecordingStore(path.join(dir, 'file', 'recordings'));
    const { session } = startSession({ store, onFailure: 'fail_open' }, 'strict');
    await session.join(new Typist());
    await until(() => session.isEnded, 'the session to end');
    expect(session.endReason).toMatch(/^session recording failed/);
  });

  it('record_session off writes nothing and says so in the end event', async () => {
    const store = new DirRecordingStore(dir);
    const { session, channel } = startSession({ store, onFailure: 'fail_closed' }, 'off');
    await session.join(new Typist());
    channel.emit('data', Buffer.from('unrecorded'));
    channel.emit('close');
    await session.recordingDone;
    expect(await readdir(dir)).toEqual([]);
    expect(audited.find((e) => e.code === 'T2004I')).toMatchObject({ session_recording: 'off' });
  });

  it('keeps the cast intact across members compressed in parallel, text or noise', async () => {
    const store = new DirRecordingStore(dir);
    await store.init();
    const clock = { now: 0 };
    const failures: string[] = [];
    const sid = '7c1e2a6c-1111-4222-8333-944455556666';
    const recorder = new SessionRecorder(
      store.create(sid),
      { width: 80, height: 24, start: 0, term: 'xterm', title: 't' },
      { now: () => clock.now, onFailure: (reason) => failures.push(reason), flushBytes: 64 * 1024 },
    );
    const noise = randomBytes(2 * 1024 * 1024).toString('base64');
    const text = 'drwxr-xr-x 2 root root 4096 Jan  1 00:00 bin\r\n'.repeat(200_000);
    const sent = [noise, text, noise];
    for (const part of sent) {
      for (let i = 0; i < part.length; i += 32 * 1024) {
        clock.now += 1;
        recorder.output(Buffer.from(part.slice(i, i + 32 * 1024)));
        // Let zlib work as it would between SSH packets, so the ratio can be measured.
        if (i % (256 * 1024) === 0) await new Promise((r) => setTimeout(r, 10));
      }
    }
    await recorder.close(['alice']);
    expect(failures).toEqual([]);
    const events = parseCast(await readFile(store.file(sid, 'cast.gz'))).slice(1) as string[][];
    expect(events.map((e) => e[2]).join('')).toBe(sent.join(''));
    // Still compressed: the text part shrinks far more than the noise grows the file.
    const size = (await readFile(store.file(sid, 'cast.gz'))).length;
    expect(size).toBeLessThan(sent.join('').length * 0.5);
    // The chunk chain follows the members in the order written, however they were compressed.
    expect(await verifyRecording(store, sid)).toMatchObject({ status: 'ok' });
  });

  it('fails the recording, once, when its encoder thread fails, and holds nothing after', async () => {
    const store = new DirRecordingStore(dir);
    await store.init();
    const failures: string[] = [];
    const encoder = new CastEncoder();
    const recorder = new SessionRecorder(
      store.create('5a1e2a6c-1111-4222-8333-944455556666'),
      { width: 80, height: 24, start: 0, term: 'xterm', title: 't' },
      { now: () => 0, onFailure: (reason) => failures.push(reason), flushBytes: 1024, encoder },
    );
    recorder.output(Buffer.alloc(4 * 1024 * 1024, 'x')); // a member still being encoded…
    await encoder.stop(); // …when the thread goes away
    recorder.output(Buffer.alloc(2048, 'y'));
    await recorder.close(['alice']);
    expect(failures).toEqual(['the recording encoder stopped']);
    expect(recorder.behind).toBe(false); // a failed recording never holds the session back
  });

  it('seals a recording a crash cut short and marks it incomplete', async () => {
    const sid = '0b7e2a6c-1111-4222-8333-944455556666';
    const header = '{"version":2,"width":80,"height":24,"timestamp":1,"env":{},"title":"t"}\n';
    const first = `${header}[0.5,"o","kept"]\n`;
    const second = '[1.5,"o","kept too"]\n[1.5,"m","bob joined (peer)"]\n[1.5,"r","90x20"]\n';
    const third = '[2.5,"o","lost in the cut, with a long enough line to be cut"]\n';
    // What the recorder leaves on disk: whole gzip members, the last one cut by the crash.
    const members = Buffer.concat([gzipSync(first), gzipSync(second), gzipSync(third)]);
    const cut = gzipSync(first).length + gzipSync(second).length + 20;
    await writeFile(path.join(dir, `${sid}.cast.gz`), members.subarray(0, cut));
    const kept = `${JSON.stringify({ t: 0.5, offset: first.length, screen: 'kept' })}\n`;
    const beyond = `${JSON.stringify({ t: 2.5, offset: first.length + second.length + third.length })}\n`;
    await writeFile(path.join(dir, `${sid}.keyframes.jsonl`), `${kept}${beyond}{"t":3,`);

    const store = new DirRecordingStore(dir);
    expect(await store.init()).toEqual({ sealed: [sid] });
    const gz = await readFile(store.file(sid, 'cast.gz'));
    expect(gunzipSync(gz).toString()).toBe(first + second);
    const index = JSON.parse(
      await readFile(store.file(sid, 'index.json'), 'utf8'),
    ) as RecordingIndex;
    expect(index).toEqual({
      version: 1,
      sid,
      sealed: true,
      incomplete: true,
      durationMs: 1500,
      participants: [],
      castBytes: first.length + second.length,
      keyframes: [
        {
          t: 0.5,
          offset: first.length,
          at: 0,
          length: Buffer.byteLength(kept),
          sha256: sha256Hex(kept),
        },
      ],
      // The seal vouches for what was recovered: the rewritten cast's two chunks.
      integrity: {
        algorithm: 'sha256-chain',
        chunks: 2,
        head: expect.stringMatching(/^[0-9a-f]{64}$/),
        keyframes: sha256Hex(`${kept}${beyond}{"t":3,`),
      },
      seekPoints: [
        { t: 0, offset: 0, gz: 0 },
        { t: 0.5, offset: first.length, gz: expect.any(Number) },
      ],
      // The marks of the kept part, read back from the cast's marker and resize events.
      marks: [
        { t: 1.5, kind: 'join', label: 'bob joined (peer)' },
        { t: 1.5, kind: 'resize', label: '90x20' },
      ],
    });
    // The keyframe starts a member of its own, so a player still seeks from it.
    expect(gunzipSync(gz.subarray(index.seekPoints![1]!.gz)).toString()).toBe(second);
    expect(await verifyRecording(store, sid)).toEqual({
      sid,
      status: 'ok',
      chunks: 2,
      keyframes: 1,
    });
    // A second start finds nothing left to seal.
    expect(await store.init()).toEqual({ sealed: [] });
  });
});
