import {
  apiPaths,
  desktopPlaybackFrameSchema,
  recordingRow,
  type DesktopPlaybackAction,
  type DesktopPlaybackFrame,
  type DesktopRecordingEvent,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import {
  createTestApp,
  type TestApp,
  type TestAppOptions,
} from '../../testing/app-harness.testkit.js';
import { emitAudit } from '../audit/emit.js';
import { readDesktopIndex } from './desktop-recording-blobs.js';
import { startDesktopRecording } from './desktop-recorder.js';
import { desktopRecordingRoutes } from './desktop-recordings.routes.js';
import {
  noise,
  readEvents,
  replay,
  TestScreen,
  virtualClock,
  waitForChunks,
} from './desktop-recording.testkit.js';

type TestWing = NonNullable<TestAppOptions['wings']>[number];

// The routes as the desktops wing registers them, on a wing of their own (the platform never
// imports the registry's wings; this app serves none of them).
const desktopRecordingsWing: TestWing = {
  name: 'desktop-recordings',
  build: () => ({}),
  routes: async (server, _services, ctx) => {
    await server.register(desktopRecordingRoutes, {
      blobs: ctx.recordings.blobs,
      audit: ctx.audit,
      guard: ctx.guard,
      clusterName: ctx.config.clusterName,
      pingIntervalMs: ctx.pingIntervalMs,
    });
  },
  kinds: () => [],
};

const sid = '5e6f7081-1111-4222-8333-944455556666';
let app: TestApp;
let baseUrl: string;
let all: DesktopRecordingEvent[];
let durationMs: number;

beforeAll(async () => {
  app = await createTestApp({ wings: [desktopRecordingsWing] });
  const blobs = app.context.recordings.blobs;
  await blobs.init();
  const clock = virtualClock();
  const screen = new TestScreen(64, 48, clock.now);
  const recording = startDesktopRecording({
    sid,
    framebuffer: screen,
    blobs,
    now: clock.now,
    participants: ['alice'],
    desktopName: 'win-1',
    keyframeIntervalMs: 1000,
  });
  for (let step = 1; step <= 16; step++) {
    clock.advance(200);
    screen.paint({ x: step * 3, y: step * 2, width: 12, height: 10 }, noise(step));
    await waitForChunks(blobs, sid, step + 1);
  }
  ({ durationMs } = await recording.close(clock.now()));
  all = await readEvents(blobs, (await readDesktopIndex(blobs, sid))!);
  baseUrl = `ws://127.0.0.1:${(await app.listenOnLoopback()).port}`;
}, 60_000);
afterAll(() => app?.close());

interface PlaybackClient {
  answer: { status: string; message?: string };
  frames: DesktopPlaybackFrame[];
  events(): DesktopRecordingEvent[];
  act(action: DesktopPlaybackAction): void;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

async function openPlayback(headers: Record<string, string>, token?: string) {
  const socket = new WebSocket(`${baseUrl}${apiPaths.desktopPlayback('-current-', sid)}`, {
    headers: { cookie: headers.cookie ?? '' },
  });
  const frames: DesktopPlaybackFrame[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const answer = await new Promise<PlaybackClient['answer']>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('open', () =>
      socket.send(JSON.stringify({ token: token ?? headers.authorization?.slice(7) ?? '' })),
    );
    socket.on('message', (data: Buffer) => {
      const value = JSON.parse(data.toString()) as { type?: string };
      if (value.type === 'create_session_response') return resolve(value as { status: string });
      frames.push(desktopPlaybackFrameSchema.parse(value));
    });
  });
  return {
    answer,
    frames,
    events: () => frames.flatMap((f) => (typeof f.message === 'object' ? [f.message] : [])),
    act: (action) => socket.send(JSON.stringify(action)),
    closed,
    close: () => socket.close(),
  } satisfies PlaybackClient;
}

const accessEvents = async () =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 100 })
  ).events.filter((e) => e.code === 'T2012I' && e.format === 'desktop');

describe('the desktop playback socket', () => {
  it('refuses a caller without the bearer (4401) and one who may not read recordings (4403)', async () => {
    const alice = await app.signIn(['access'], 'alice');
    const forged = await openPlayback(alice, 'not-the-bearer');
    expect(forged.answer).toEqual(
      expect.objectContaining({ status: 'error', message: 'not authenticated' }),
    );
    expect((await forged.closed).code).toBe(4401);
    const cookieless = await openPlayback({ authorization: alice.authorization });
    expect((await cookieless.closed).code).toBe(4401);

    const editor = await openPlayback(await app.signIn(['editor'], 'eddie'));
    expect(editor.answer.message).toMatch(/read on recordedSessions is not allowed/);
    expect((await editor.closed).code).toBe(4403);
    // Someone who may read recordings, but not this one: as if it did not exist.
    const bob = await openPlayback(await app.signIn(['access'], 'bob'));
    expect(bob.answer.message).toMatch(/not found/);
    expect((await bob.closed).code).toBe(4404);
    expect(await accessEvents()).toEqual([]);
  });

  it('plays to a participant at the pace and speed asked, and audits the access', async () => {
    const client = await openPlayback(await app.signIn(['access'], 'alice'));
    expect(client.answer.status).toBe('ok');
    client.act({ action: 'speed', speed: 16 });
    const started = Date.now();
    await vi.waitFor(() => expect(client.frames.at(-1)).toEqual({ message: 'end' }), 5000);
    expect(Date.now() - started).toBeGreaterThan(durationMs / 16 - 50);
    expect(client.events()).toEqual(all);
    expect(await accessEvents()).toEqual([
      expect.objectContaining({ user: 'alice', sid, event: 'session.recording.access' }),
    ]);
    client.close();
  });

  it('pauses, plays on, and seeks to the pixels of any moment', async () => {
    const client = await openPlayback(await app.signIn(['auditor'], 'audrey'));
    client.act({ action: 'play/pause' }); // paused at the start
    await vi.waitFor(() => expect(client.events().length).toBeGreaterThanOrEqual(2));
    const atStart = client.frames.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(client.frames.length).toBe(atStart);

    for (const pos of [2345, 700, 3100]) {
      client.frames.length = 0;
      client.act({ action: 'seek', pos });
      const expected = replay(all.filter((e) => e.ms <= pos));
      await vi.waitFor(() => {
        const seeked = replay(client.events());
        expect(Buffer.from(seeked.pixels).equals(Buffer.from(expected.pixels))).toBe(true);
      });
      expect(client.events().every((e) => e.ms <= pos)).toBe(true);
    }
    client.act({ action: 'speed', speed: 8 });
    client.act({ action: 'play/pause' });
    await vi.waitFor(() => expect(client.frames.at(-1)).toEqual({ message: 'end' }), 5000);
    expect(Buffer.from(replay(client.events()).pixels)).toEqual(Buffer.from(replay(all).pixels));
    client.close();
  });

  it('answers an unknown action with an error frame and plays on', async () => {
    const client = await openPlayback(await app.signIn(['auditor'], 'audrey'));
    client.act({ action: 'rewind' } as unknown as DesktopPlaybackAction);
    await vi.waitFor(() =>
      expect(client.frames).toContainEqual({ message: 'error', errorText: 'unknown action' }),
    );
    client.close();
  });
});

describe('GET desktopplayback/:sid', () => {
  const url = apiPaths.desktopRecordingInfo('-current-', sid);

  it('answers 401, 403, 404 as the recordings do, and the info to a participant', async () => {
    expect((await app.server.inject({ url })).statusCode).toBe(401);
    const editor = await app.signIn(['editor'], 'eddie');
    expect((await app.server.inject({ url, headers: editor })).statusCode).toBe(403);
    const bob = await app.signIn(['access'], 'bob');
    expect((await app.server.inject({ url, headers: bob })).statusCode).toBe(404);
    const alice = await app.signIn(['access'], 'alice');
    const res = await app.server.inject({ url, headers: alice });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      sid,
      durationMs,
      incomplete: false,
      width: 64,
      height: 48,
      desktopName: 'win-1',
      keyframeTimes: [0, 1000, 2000, 3000],
    });
  });
});

describe('Session Recordings', () => {
  it('lists a recorded desktop session from its end event, playable, to its participants', async () => {
    // One clock reading for both ends: two readings a millisecond apart made the duration 1 ms long.
    const stop = Date.now();
    await emitAudit(app.audit, 'TDP01I', {
      user: 'alice',
      session_id: sid,
      desktop_name: 'win-1',
      desktop_addr: '127.0.0.25:5900',
      windows_user: 'alice',
      participants: ['alice'],
      recorded: true,
      session_start: new Date(stop - durationMs).toISOString(),
      session_stop: new Date(stop).toISOString(),
    });
    const list = async (user: string) => {
      const headers = await app.signIn(['access'], user);
      const from = new Date(Date.now() - 3_600_000).toISOString();
      const to = new Date(Date.now() + 60_000).toISOString();
      const res = await app.server.inject({
        url: `${apiPaths.eventsSearchSessions('-current-')}?from=${from}&to=${to}`,
        headers,
      });
      expect(res.statusCode).toBe(200);
      return (res.json() as { events: Parameters<typeof recordingRow>[0][] }).events;
    };
    const [event] = await list('alice');
    expect(recordingRow(event!)).toMatchObject({
      sid,
      recordingType: 'desktop',
      playable: true,
      hostname: 'win-1',
      duration: durationMs,
    });
    expect(await list('bob')).toEqual([]);
  });
});
