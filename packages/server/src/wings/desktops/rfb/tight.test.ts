import { createDeflate, type Deflate } from 'node:zlib';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { Framebuffer, type Rect } from './framebuffer.js';
import { encoding } from './protocol.js';
import { choppedInput, deflateFlushed } from './rfb.testkit.js';
import {
  encodeRectHeader,
  encodeUpdateHeader,
  ServerMessageReader,
  type ServerMessage,
} from './server-messages.js';
import { FillPaint, JpegPaint } from './tight-paints.js';

type Rgb = [number, number, number];

/** A desktop's side of Tight: four zlib streams, each flushed at every rectangle's end. */
class TightEncoder {
  readonly #streams: Deflate[] = [];

  deflate(stream: number, data: Buffer): Promise<Buffer> {
    return deflateFlushed((this.#streams[stream] ??= createDeflate()), data);
  }

  close() {
    for (const stream of this.#streams) stream?.destroy();
  }
}

const compact = (length: number) =>
  Buffer.from(
    length < 0x80
      ? [length]
      : length < 0x4000
        ? [(length & 0x7f) | 0x80, length >> 7]
        : [(length & 0x7f) | 0x80, ((length >> 7) & 0x7f) | 0x80, length >> 14],
  );
const header = (rect: Rect) => encodeRectHeader(rect, encoding.tight);

const fill = (rect: Rect, rgb: Rgb, resets = 0) =>
  Buffer.concat([header(rect), Buffer.from([0x80 | resets, ...rgb])]);

/** Basic compression with a filter; data under 12 bytes goes uncompressed, as Tight has it. */
async function basic(
  encoder: TightEncoder,
  rect: Rect,
  options: { stream: number; filter: number; palette?: Rgb[]; data: Buffer; resets?: number },
) {
  const control = ((0x4 | options.stream) << 4) | (options.resets ?? 0);
  const filter = [options.filter];
  const palette = options.palette
    ? [options.palette.length - 1, ...options.palette.flat()]
    : ([] as number[]);
  const body =
    options.data.length < 12
      ? options.data
      : await encoder
          .deflate(options.stream, options.data)
          .then((zipped) => Buffer.concat([compact(zipped.length), zipped]));
  return Buffer.concat([header(rect), Buffer.from([control, ...filter, ...palette]), body]);
}

function jpegOf(rect: Rect, at: (x: number, y: number) => Rgb, quality = 95) {
  const data = Buffer.alloc(rect.width * rect.height * 4);
  for (let y = 0; y < rect.height; y++) {
    for (let x = 0; x < rect.width; x++) {
      data.set([...at(x, y), 255], (y * rect.width + x) * 4);
    }
  }
  return jpeg.encode({ width: rect.width, height: rect.height, data }, quality).data;
}
const jpegRect = (rect: Rect, bytes: Buffer) =>
  Buffer.concat([header(rect), Buffer.from([0x90]), compact(bytes.length), bytes]);

async function readAll(bytes: Buffer, framebuffer: Framebuffer, pixels = true) {
  const forwarded: Buffer[] = [];
  const reader = new ServerMessageReader(
    choppedInput(bytes, 3, 40),
    framebuffer,
    (piece) => {
      forwarded.push(piece);
      return undefined;
    },
    { pixels },
  );
  const messages: ServerMessage[] = [];
  // What was found behind the reading (or when the copy is read) comes a moment later.
  const failure = () =>
    Promise.race([
      reader.decodeFailed,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 50)),
    ]);
  try {
    for (;;) messages.push(await reader.next());
  } catch (error) {
    if ((error as Error).name !== 'PeerGoneError') throw error;
    // The last update's zlib data is inflated behind the reading; let it end before closing.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    reader.close();
  }
  return { messages, forwarded: Buffer.concat(forwarded), failure };
}

const pixel = (framebuffer: Framebuffer, x: number, y: number) => {
  const at = (y * framebuffer.width + x) * 4;
  return [...framebuffer.pixels().subarray(at, at + 3)];
};

describe('Tight rectangles', () => {
  it('decodes fill, copy, palette, two-colour and gradient rectangles, forwarding every byte', async () => {
    const encoder = new TightEncoder();
    const copyRect = { x: 0, y: 0, width: 4, height: 4 };
    const copyData = Buffer.from(
      Array.from({ length: 16 }, (_, i) => [i * 10, 255 - i, i * 3]).flat(),
    );
    const paletteRect = { x: 4, y: 0, width: 4, height: 4 };
    const palette: Rgb[] = [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
    ];
    const indices = Buffer.from(Array.from({ length: 16 }, (_, i) => i % 3));
    const monoRect = { x: 0, y: 4, width: 10, height: 2 };
    const two: Rgb[] = [
      [1, 2, 3],
      [200, 201, 202],
    ];
    // 10 pixels a row: two bytes, the last 6 bits padding; row 0 alternates, row 1 all ones.
    const bits = Buffer.from([0b10101010, 0b10000000, 0xff, 0xff]);
    const gradientRect = { x: 0, y: 6, width: 3, height: 2 };
    // Each component: the data plus left + above - above-left (0 outside the rectangle).
    const gradientData = Buffer.from([
      ...[10, 20, 30, 5, 5, 5, 1, 1, 1],
      ...[3, 3, 3, 0, 0, 0, 250, 250, 250],
    ]);
    const bytes = Buffer.concat([
      encodeUpdateHeader(5),
      fill({ x: 8, y: 0, width: 2, height: 8 }, [9, 8, 7]),
      await basic(encoder, copyRect, { stream: 0, filter: 0, data: copyData }),
      await basic(encoder, paletteRect, { stream: 2, filter: 1, palette, data: indices }),
      await basic(encoder, monoRect, { stream: 1, filter: 1, palette: two, data: bits }),
      await basic(encoder, gradientRect, { stream: 3, filter: 2, data: gradientData }),
    ]);
    encoder.close();
    const framebuffer = new Framebuffer(10, 8);
    const { messages, forwarded, failure } = await readAll(bytes, framebuffer);

    expect(forwarded).toEqual(bytes);
    expect(messages).toHaveLength(1);
    expect(await failure()).toBeUndefined();
    expect(pixel(framebuffer, 9, 7)).toEqual([9, 8, 7]);
    expect(pixel(framebuffer, 0, 0)).toEqual([0, 255, 0]);
    expect(pixel(framebuffer, 3, 3)).toEqual([150, 240, 45]);
    expect(pixel(framebuffer, 4, 0)).toEqual([255, 0, 0]);
    expect(pixel(framebuffer, 5, 0)).toEqual([0, 255, 0]);
    expect(pixel(framebuffer, 6, 0)).toEqual([0, 0, 255]);
    expect([0, 1, 8, 9].map((x) => pixel(framebuffer, x, 4))).toEqual([
      two[1],
      two[0],
      two[1],
      two[0],
    ]);
    expect(pixel(framebuffer, 9, 5)).toEqual(two[1]);
    // Row 0: 10,20,30; then 10+5=15,25,35; then 16,26,36. Row 1, column 0: above (10) + 3 = 13;
    // column 1: left 13 + above 15 - above-left 10 = 18; column 2: 18 + 16 - 15 = 19, + 250.
    expect(pixel(framebuffer, 0, 6)).toEqual([10, 20, 30]);
    expect(pixel(framebuffer, 2, 6)).toEqual([16, 26, 36]);
    expect(pixel(framebuffer, 0, 7)).toEqual([13, 23, 33]);
    expect(pixel(framebuffer, 1, 7)).toEqual([18, 28, 38]);
    expect(pixel(framebuffer, 2, 7)).toEqual([
      (19 + 250) & 0xff,
      (29 + 250) & 0xff,
      39 + 250 - 256,
    ]);
  });

  it('runs each zlib stream on from one rectangle into the next, and starts one afresh on a reset', async () => {
    const encoder = new TightEncoder();
    const rect = (x: number) => ({ x, y: 0, width: 4, height: 4 });
    const solid = (rgb: Rgb) => Buffer.from(Array(16).fill(rgb).flat());
    const first = await basic(encoder, rect(0), { stream: 0, filter: 0, data: solid([1, 1, 1]) });
    const second = await basic(encoder, rect(4), { stream: 0, filter: 0, data: solid([2, 2, 2]) });
    const fresh = new TightEncoder();
    const third = await basic(fresh, rect(8), {
      stream: 0,
      filter: 0,
      data: solid([3, 3, 3]),
      resets: 0b0001,
    });
    encoder.close();
    fresh.close();
    const framebuffer = new Framebuffer(12, 4);
    const bytes = Buffer.concat([encodeUpdateHeader(3), first, second, third]);
    const { failure } = await readAll(bytes, framebuffer);
    expect(await failure()).toBeUndefined();
    expect([0, 4, 8].map((x) => pixel(framebuffer, x, 3))).toEqual([
      [1, 1, 1],
      [2, 2, 2],
      [3, 3, 3],
    ]);
  });

  it('decodes a JPEG rectangle close to its source', async () => {
    const rect = { x: 2, y: 2, width: 16, height: 8 };
    const colour = (x: number, y: number): Rgb => [x * 12, y * 24, 128];
    const bytes = Buffer.concat([encodeUpdateHeader(1), jpegRect(rect, jpegOf(rect, colour))]);
    const framebuffer = new Framebuffer(20, 12);
    const { failure } = await readAll(bytes, framebuffer);
    expect(await failure()).toBeUndefined();
    for (const [x, y] of [
      [0, 0],
      [15, 7],
      [8, 4],
    ] as const) {
      const got = pixel(framebuffer, rect.x + x, rect.y + y);
      got.forEach((value, c) => expect(Math.abs(value - colour(x, y)[c]!)).toBeLessThan(12));
    }
    expect(pixel(framebuffer, 0, 0)).toEqual([0, 0, 0]);
  });

  it('never decodes a JPEG that later rectangles cover, and fails the session on one still on screen', async () => {
    const rect = { x: 0, y: 0, width: 8, height: 8 };
    // A frame header of the rectangle's size, then nothing a decoder can use.
    const broken = Buffer.from([
      ...[0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 8, 0, 8, 1, 1, 0x11, 0],
      ...[0xff, 0xda, 0, 2],
    ]);
    const covered = Buffer.concat([
      encodeUpdateHeader(3),
      jpegRect(rect, broken),
      fill({ x: 0, y: 0, width: 8, height: 4 }, [5, 5, 5]),
      fill({ x: 0, y: 4, width: 8, height: 4 }, [6, 6, 6]),
    ]);
    const framebuffer = new Framebuffer(8, 8);
    const first = await readAll(covered, framebuffer);
    expect(await first.failure()).toBeUndefined();
    expect([pixel(framebuffer, 0, 0), pixel(framebuffer, 7, 7)]).toEqual([
      [5, 5, 5],
      [6, 6, 6],
    ]);

    const visible = Buffer.concat([encodeUpdateHeader(1), jpegRect(rect, broken)]);
    const other = new Framebuffer(8, 8);
    const second = await readAll(visible, other);
    other.pixels();
    expect((await second.failure())?.message).toContain('a Tight JPEG that does not decode');
  });

  it('decodes a JPEG on the JPEG thread when the screen is prepared, so the read only copies', async () => {
    const rect = { x: 0, y: 0, width: 16, height: 8 };
    const colour = (x: number, y: number): Rgb => [200 - x * 8, 40 + y * 10, 90];
    const bytes = jpegOf(rect, colour);
    const framebuffer = new Framebuffer(16, 8);
    framebuffer.defer(new JpegPaint(rect, [bytes]));
    const prepared = framebuffer.prepare()!;
    // A paint after the prepare stays for the next read: the reader shows the screen as it was.
    framebuffer.defer(new FillPaint(rect, Buffer.from([1, 2, 3])));
    const read = await prepared;
    // Spoil what was received: only what the thread decoded can still draw the image.
    bytes.fill(0);
    const at = (15 + 7 * 16) * 4;
    const got = [...read().subarray(at, at + 3)];
    got.forEach((value, c) => expect(Math.abs(value - colour(15, 7)[c]!)).toBeLessThan(12));
    expect(pixel(framebuffer, 15, 7)).toEqual([1, 2, 3]);

    // A broken one fails when drawn, with the thread's reason; prepare itself never rejects.
    const broken = Buffer.from([
      ...[0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 8, 0, 16, 1, 1, 0x11, 0],
      ...[0xff, 0xda, 0, 2],
    ]);
    const other = new Framebuffer(16, 8);
    const failures: Error[] = [];
    other.onPaintFailure((error) => failures.push(error));
    other.defer(new JpegPaint(rect, [broken]));
    await other.prepare();
    other.pixels();
    expect(failures.map((error) => error.message)).toEqual([
      expect.stringContaining('a Tight JPEG that does not decode'),
    ]);
  });

  it('refuses a JPEG claiming another size than its rectangle before decoding it', async () => {
    const rect = { x: 0, y: 0, width: 8, height: 8 };
    const bytes = Buffer.concat([
      encodeUpdateHeader(1),
      jpegRect(
        rect,
        jpegOf({ ...rect, width: 16 }, () => [1, 2, 3]),
      ),
    ]);
    const framebuffer = new Framebuffer(8, 8);
    const { failure } = await readAll(bytes, framebuffer);
    framebuffer.pixels();
    expect((await failure())?.message).toContain('a Tight JPEG of 16×8 for a 8×8 rectangle');

    // A header claiming a huge image, and no image: refused on the header, nothing allocated.
    const huge = Buffer.from([
      ...[0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0x1f, 0x40, 0x1f, 0x40, 1, 1, 0x11, 0],
    ]);
    const other = new Framebuffer(8, 8);
    const second = await readAll(
      Buffer.concat([encodeUpdateHeader(1), jpegRect(rect, huge)]),
      other,
    );
    other.pixels();
    expect((await second.failure())?.message).toContain('a Tight JPEG of 8000×8000 for a 8×8');
  });

  it('with pixels off, forwards every rectangle and decodes none', async () => {
    const encoder = new TightEncoder();
    const rect = { x: 0, y: 0, width: 4, height: 4 };
    const bytes = Buffer.concat([
      encodeUpdateHeader(3),
      fill(rect, [9, 9, 9]),
      jpegRect(rect, Buffer.from('not a jpeg at all')),
      await basic(encoder, rect, {
        stream: 1,
        filter: 0,
        data: Buffer.from(Array(48).fill(7)),
      }),
    ]);
    encoder.close();
    const framebuffer = new Framebuffer(4, 4);
    const { forwarded, failure, messages } = await readAll(bytes, framebuffer, false);
    expect(forwarded).toEqual(bytes);
    expect(messages).toHaveLength(1);
    expect(await failure()).toBeUndefined();
    expect(pixel(framebuffer, 0, 0)).toEqual([0, 0, 0]);
  });

  it.each([
    ['a filter Tight does not have', Buffer.from([0x40, 3]), 'filter 3'],
    ['PNG, which is TightPNG’s', Buffer.from([0xa0]), 'compression 10'],
  ])('refuses %s', async (_name, payload, message) => {
    const bytes = Buffer.concat([
      encodeUpdateHeader(1),
      header({ x: 0, y: 0, width: 4, height: 4 }),
      payload,
    ]);
    await expect(readAll(bytes, new Framebuffer(4, 4))).rejects.toThrow(message);
  });

  it('fails the session on a palette index past its palette', async () => {
    const encoder = new TightEncoder();
    const rect = { x: 0, y: 0, width: 4, height: 4 };
    const bytes = Buffer.concat([
      encodeUpdateHeader(1),
      await basic(encoder, rect, {
        stream: 2,
        filter: 1,
        palette: [
          [1, 1, 1],
          [2, 2, 2],
          [3, 3, 3],
        ],
        data: Buffer.from(Array(16).fill(7)),
      }),
    ]);
    encoder.close();
    const framebuffer = new Framebuffer(4, 4);
    const { failure } = await readAll(bytes, framebuffer);
    framebuffer.pixels();
    expect((await failure())?.message).toContain('palette index 7 past its 3 colours');
  });

  it('fails the session when a rectangle’s zlib data ends before its pixels do', async () => {
    const encoder = new TightEncoder();
    const rect = { x: 0, y: 0, width: 4, height: 4 };
    // Only the first half of the 48 bytes of pixels: zlib flushes what it has and waits for more.
    const short = await encoder.deflate(0, Buffer.from(Array(24).fill(1)));
    encoder.close();
    const bytes = Buffer.concat([
      encodeUpdateHeader(1),
      header(rect),
      Buffer.from([0x40, 0]),
      compact(short.length),
      short,
    ]);
    const { failure } = await readAll(bytes, new Framebuffer(4, 4));
    expect((await failure())?.message).toContain('Tight zlib data ending before its rectangle did');
  });
});
