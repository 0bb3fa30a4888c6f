import type { CastEvent, RecordingChunk } from '@postern/contracts';
import type { FakeClock } from '../../test/fakeClock';
import type { ChunkQuery, PlaybackClock, PlaybackTerminal } from './playbackTypes';

/** A terminal that records what it was told, in order. */
export class FakePlaybackTerminal implements PlaybackTerminal {
  calls: string[] = [];
  reset() {
    this.calls.push('reset');
  }
  resize(cols: number, rows: number) {
    this.calls.push(`resize ${cols}x${rows}`);
  }
  write(data: string) {
    this.calls.push(`write ${data}`);
  }
  /** Everything written, joined: what the screen would show, roughly. */
  written() {
    return this.calls
      .filter((call) => call.startsWith('write '))
      .map((call) => call.slice(6))
      .join('');
  }
}

interface PendingRequest {
  query: ChunkQuery;
  signal: AbortSignal;
  answer(chunk: RecordingChunk): Promise<void>;
  fail(err: Error): Promise<void>;
}

/** A server whose answers the test gives, one request at a time, when it wants. */
export function fakeChunkServer() {
  const requests: PendingRequest[] = [];
  const fetchChunk = (query: ChunkQuery, signal: AbortSignal) =>
    new Promise<RecordingChunk>((resolve, reject) => {
      const settled = async () => {
        for (let i = 0; i < 20; i++) await Promise.resolve();
      };
      requests.push({
        query,
        signal,
        answer: (chunk) => (resolve(chunk), settled()),
        fail: (err) => (reject(err), settled()),
      });
    });
  return { requests, fetchChunk, last: () => requests.at(-1)! };
}

/** Frames every 16 ms of the fake clock. */
export function frameClock(clock: FakeClock): PlaybackClock {
  return {
    now: () => clock.now(),
    nextFrame: (run) => {
      const id = clock.setTimeout(run, 16);
      return () => clock.clearInterval(id);
    },
  };
}

/** One output event per second, `e0`…, from `from` to `to` seconds. */
export function everySecond(from: number, to: number): CastEvent[] {
  const events: CastEvent[] = [];
  for (let t = from; t <= to; t++) events.push([t, 'o', `e${t} `]);
  return events;
}
