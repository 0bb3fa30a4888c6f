import type { CastEvent } from '@postern/contracts';
import { beforeEach, describe, expect, it } from 'vitest';
import { createFakeClock, type FakeClock } from '../../test/fakeClock';
import { everySecond, fakeChunkServer, FakePlaybackTerminal, frameClock } from './fakePlayback';
import { PlaybackEngine } from './PlaybackEngine';

let clock: FakeClock;
let terminal: FakePlaybackTerminal;
let server: ReturnType<typeof fakeChunkServer>;

beforeEach(() => {
  clock = createFakeClock();
  terminal = new FakePlaybackTerminal();
  server = fakeChunkServer();
});

function startEngine(durationMs: number) {
  const engine = new PlaybackEngine(
    { durationMs, cols: 80, rows: 24 },
    { fetchChunk: server.fetchChunk, terminal, clock: frameClock(clock) },
  );
  engine.start();
  return engine;
}

/** Starts a recording whose whole event list comes in the first chunk. */
async function playing(durationMs: number, events: CastEvent[]) {
  const engine = startEngine(durationMs);
  await server.last().answer({ events, next: null });
  return engine;
}

describe('PlaybackEngine', () => {
  it('loads the first chunk at 0 and fetches the next one by offset ahead of the clock', async () => {
    const engine = startEngine(10_000);
    expect(server.requests.map((r) => r.query)).toEqual([{ at: 0 }]);
    expect(engine.getState().status).toBe('loading');

    await server.last().answer({ events: everySecond(0, 4), next: 100 });
    expect(engine.getState().status).toBe('playing');
    expect(terminal.calls).toEqual(['reset', 'resize 80x24', 'write e0 ']);
    // Four seconds buffered is less than ten: the next chunk is asked for at once.
    expect(server.requests.map((r) => r.query)).toEqual([{ at: 0 }, { offset: 100 }]);

    await clock.advance(2016);
    expect(terminal.written()).toBe('e0 e1 e2 ');
    await server.last().answer({ events: everySecond(5, 9), next: null });
    await clock.advance(8000);
    expect(terminal.written()).toBe('e0 e1 e2 e3 e4 e5 e6 e7 e8 e9 ');
    expect(engine.getState()).toMatchObject({ status: 'ended', timeMs: 10_000 });
    expect(server.requests).toHaveLength(2);
  });

  it('does not fetch ahead while more than 10 s and 64 KiB are buffered', async () => {
    const big = 'x'.repeat(2048);
    const events = Array.from({ length: 60 }, (_, t): CastEvent => [t, 'o', big]);
    startEngine(70_000);
    await server.last().answer({ events, next: 4096 });
    await clock.advance(10_000);
    expect(server.requests).toHaveLength(1);
    await clock.advance(45_000);
    expect(server.requests.map((r) => r.query)).toEqual([{ at: 0 }, { offset: 4096 }]);
  });

  it('seeks back from the nearest keyframe and fast-forwards only the events after it', async () => {
    const engine = await playing(30_000, everySecond(0, 20));
    await clock.advance(15_000);
    terminal.calls = [];

    engine.seek(12_500);
    expect(server.last().query).toEqual({ at: 12.5 });
    await server.last().answer({
      screen: { t: 10, cols: 100, rows: 30, data: 'SCREEN@10 ' },
      events: [
        [10.5, 'o', 'a '],
        [12, 'o', 'b '],
        [13, 'o', 'c '],
      ],
      next: null,
    });
    // The screen, then everything up to 12.5 s in one write; 13 s waits for its time.
    expect(terminal.calls).toEqual(['reset', 'resize 100x30', 'write SCREEN@10 ', 'write a b ']);
    expect(engine.getState()).toMatchObject({ status: 'playing', timeMs: 12_500 });
    await clock.advance(600);
    expect(terminal.calls.at(-1)).toBe('write c ');
  });

  it('fast-forwards through the next chunk by offset when the seek lands beyond the first', async () => {
    const engine = await playing(30_000, everySecond(0, 3));
    terminal.calls = [];
    engine.seek(25_000);
    await server.last().answer({
      screen: { t: 20, cols: 80, rows: 24, data: 'S ' },
      events: [
        [21, 'o', 'x '],
        [22, 'o', 'y '],
      ],
      next: 500,
    });
    expect(engine.getState().status).toBe('loading');
    expect(server.last().query).toEqual({ offset: 500 });
    await server.last().answer({
      events: [
        [24, 'o', 'z '],
        [26, 'o', 'w '],
      ],
      next: null,
    });
    expect(terminal.written()).toBe('S x y z ');
    expect(engine.getState()).toMatchObject({ status: 'playing', timeMs: 25_000 });
  });

  it('drops the answer to a seek that a second seek replaced', async () => {
    const engine = await playing(30_000, everySecond(0, 3));
    engine.seek(5000);
    const first = server.last();
    engine.seek(8000);
    const second = server.last();
    expect(first.signal.aborted).toBe(true);
    terminal.calls = [];

    await first.answer({ screen: { t: 5, cols: 80, rows: 24, data: 'OLD' }, events: [], next: 1 });
    expect(terminal.calls).toEqual([]);
    expect(engine.getState().status).toBe('loading');
    await second.answer({
      screen: { t: 8, cols: 80, rows: 24, data: 'NEW' },
      events: [],
      next: null,
    });
    expect(terminal.written()).toBe('NEW');
    expect(server.requests).toHaveLength(3);
  });

  it('plays 4 s of events in 1 s at 4×', async () => {
    const engine = await playing(10_000, everySecond(0, 10));
    engine.setSpeed(4);
    await clock.advance(1016);
    expect(terminal.written()).toBe('e0 e1 e2 e3 e4 ');
  });

  it('plays in real time by default: a 60 s silence lasts 60 s', async () => {
    const silence: CastEvent[] = [
      [0, 'o', 'a '],
      [60, 'o', 'b '],
    ];
    const engine = await playing(61_000, silence);
    expect(engine.getState().skipIdle).toBe(false);
    await clock.advance(59_000);
    expect(terminal.written()).toBe('a ');
    await clock.advance(1_100);
    expect(terminal.written()).toBe('a b ');
  });

  it('shortens a 60 s silence to 1 s with skip idle on', async () => {
    const silence: CastEvent[] = [
      [0, 'o', 'a '],
      [60, 'o', 'b '],
    ];
    const skipping = startEngine(61_000);
    skipping.setSkipIdle(true);
    await server.last().answer({ events: silence, next: null });
    await clock.advance(1100);
    expect(terminal.written()).toBe('a b ');
    expect(skipping.getState().timeMs).toBeGreaterThanOrEqual(60_000);
  });

  it('resizes on resize events and skips unknown kinds', async () => {
    await playing(3000, [
      [0, 'o', 'a '],
      [1, 'r', '100x40'],
      [1, 'o', 'b '],
      [1.5, 'm', 'marker'],
      [2, 'o', 'c '],
    ]);
    await clock.advance(2016);
    expect(terminal.calls).toEqual([
      'reset',
      'resize 80x24',
      'write a ',
      'resize 100x40',
      'write b ',
      'write c ',
    ]);
  });

  it('goes on from where it was after frames stopped (a hidden tab), not from the wall clock', async () => {
    const engine = await playing(60_000, everySecond(0, 59));
    await clock.advance(2016);
    // No frames for 30 s, then one.
    clock.jump(30_000);
    await clock.advance(16);
    expect(engine.getState().timeMs).toBeLessThan(4000);
  });

  it('ends at the duration and plays again from the start', async () => {
    const engine = await playing(2000, everySecond(0, 1));
    await clock.advance(3000);
    expect(engine.getState()).toMatchObject({ status: 'ended', timeMs: 2000 });
    engine.play();
    expect(server.last().query).toEqual({ at: 0 });
    await server.last().answer({ events: everySecond(0, 1), next: null });
    expect(engine.getState()).toMatchObject({ status: 'playing', timeMs: 0 });
  });

  it('pauses the clock, and shows a failed request as an error', async () => {
    const engine = startEngine(10_000);
    await server.last().answer({ events: everySecond(0, 4), next: 7 });
    engine.pause();
    await clock.advance(3000);
    expect(engine.getState()).toMatchObject({ status: 'paused', timeMs: 0 });
    await server.last().fail(new Error('503 - unavailable'));
    expect(engine.getState()).toMatchObject({ status: 'error', error: '503 - unavailable' });
  });

  it('plays a damaged recording up to the damage and ends there, instead of failing', async () => {
    const engine = startEngine(60_000);
    await server.last().answer({ events: everySecond(0, 4), next: 100 });
    await server.last().answer({
      events: everySecond(5, 8),
      next: null,
      damaged: { t: 8, chunk: 3, message: 'the recording is damaged here' },
    });
    expect(engine.getState().damagedAtMs).toBe(8000);
    await clock.advance(20_000);
    expect(terminal.written()).toBe('e0 e1 e2 e3 e4 e5 e6 e7 e8 ');
    expect(engine.getState()).toMatchObject({ status: 'ended', timeMs: 8000, damagedAtMs: 8000 });
    expect(engine.getState().error).toBeUndefined();
  });
});
