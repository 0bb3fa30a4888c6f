import { inflateSync } from 'node:zlib';
import type { DesktopRecordingEvent } from '@postern/contracts';
import { vi } from 'vitest';
import type { BlobStore } from '../../blobs/blob-store.js';
import { parseChunkList } from '../recordings/recording-integrity.js';
import { desktopBlobName, type DesktopRecordingIndex } from './desktop-recording-blobs.js';
import { openRecords } from './desktop-recording-reader.js';
import type { FramebufferSource, Rect } from './framebuffer-source.js';
import { toEvent } from './record-format.js';

/** Time that moves only when a test moves it. */
export function virtualClock(start = 1_700_000_000_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
}

export type Rgba = readonly [number, number, number, number];

/**
 * A framebuffer a test paints: each paint is one update, and every read of the pixels (the
 * recorder's capture) is kept with the time it happened, to compare a replay against.
 */
export class TestScreen implements FramebufferSource {
  data: Uint8Array;
  readonly captures: { at: number; width: number; height: number; pixels: Uint8Array }[] = [];
  private readonly updates = new Set<(rects: Rect[]) => void>();
  private readonly resizes = new Set<(width: number, height: number) => void>();

  constructor(
    public width: number,
    public height: number,
    private readonly now: () => number = Date.now,
  ) {
    this.data = new Uint8Array(width * height * 4);
  }

  pixels(): Uint8Array {
    const { width, height } = this;
    this.captures.push({ at: this.now(), width, height, pixels: this.data.slice() });
    return this.data;
  }

  onUpdate(listener: (rects: Rect[]) => void) {
    this.updates.add(listener);
    return () => void this.updates.delete(listener);
  }

  onResize(listener: (width: number, height: number) => void) {
    this.resizes.add(listener);
    return () => void this.resizes.delete(listener);
  }

  /** Fills `rect` with `colour(x, y)`, then reports it changed. */
  paint(rect: Rect, colour: (x: number, y: number) => Rgba): void {
    for (let y = rect.y; y < rect.y + rect.height; y++) {
      for (let x = rect.x; x < rect.x + rect.width; x++) {
        this.data.set(colour(x, y), (y * this.width + x) * 4);
      }
    }
    for (const listener of this.updates) listener([rect]);
  }

  resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    this.data = new Uint8Array(width * height * 4);
    for (const listener of this.resizes) listener(width, height);
  }
}

/** Pixels that differ from their neighbours, so a misplaced copy shows. */
export const noise =
  (seed: number) =>
  (x: number, y: number): Rgba => {
    const h = Math.imul((x * 73_856_093) ^ (y * 19_349_663) ^ (seed * 83_492_791), 2_654_435_761);
    return [h & 255, (h >>> 8) & 255, (h >>> 16) & 255, 255];
  };

export interface Replayed {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** Draws events as a player does: a `screen` starts a blank one, a `rect` inflates into it. */
export function replay(events: readonly DesktopRecordingEvent[], from?: Replayed): Replayed {
  let canvas = from ?? { width: 0, height: 0, pixels: new Uint8Array(0) };
  for (const event of events) {
    if (event.type === 'screen') {
      const { width, height } = event;
      canvas = { width, height, pixels: new Uint8Array(width * height * 4) };
    }
    if (event.type !== 'rect') continue;
    const rows = inflateSync(Buffer.from(event.rgba, 'base64'));
    for (let row = 0; row < event.height; row++) {
      const start = row * event.width * 4;
      const target = ((event.y + row) * canvas.width + event.x) * 4;
      canvas.pixels.set(rows.subarray(start, start + event.width * 4), target);
    }
  }
  return canvas;
}

/** Every event of a sealed recording from the chunk at byte `at`, checked as the player reads. */
export async function readEvents(
  blobs: BlobStore,
  index: DesktopRecordingIndex,
  at = 0,
): Promise<DesktopRecordingEvent[]> {
  const cursor = await openRecords(blobs, index, at);
  const events: DesktopRecordingEvent[] = [];
  for (let record = await cursor.next(); record; record = await cursor.next()) {
    const event = toEvent(record);
    if (event) events.push(event);
  }
  if (cursor.damage) throw new Error(cursor.damage);
  return events;
}

/** How many chunks a recording has written so far (its chunk list, open or sealed). */
export async function chunkCount(blobs: BlobStore, sid: string): Promise<number> {
  const list = await blobs.get(desktopBlobName(sid, 'desktop.chunks.jsonl'));
  return parseChunkList(list ?? Buffer.alloc(0)).length;
}

export async function waitForChunks(blobs: BlobStore, sid: string, count: number) {
  await vi.waitFor(async () => {
    if ((await chunkCount(blobs, sid)) < count) throw new Error(`fewer than ${count} chunks`);
  });
}
