import { createDeflate } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Framebuffer, type Rect } from './framebuffer.js';
import { RfbProtocolError } from './rfb-errors.js';
import { choppedInput, deflateFlushed } from './rfb.testkit.js';
import { ZrleDecoder, ZrleRectTiles } from './zrle.js';
import { decodeZrleTile } from './zrle-tile.js';

type Rgb = [number, number, number];
const red: Rgb = [255, 0, 0];
const green: Rgb = [0, 255, 0];
const blue: Rgb = [0, 0, 255];
const white: Rgb = [255, 255, 255];
const cpixels = (...colours: Rgb[]) => colours.flat();

/** Decodes one tile and returns its pixels as RGB triples, row by row. */
function tile(bytes: number[], width: number, height: number): Rgb[] {
  const words = new Uint32Array(width * height);
  const end = decodeZrleTile(Buffer.from(bytes), 0, width, height, words);
  expect(end).toBe(bytes.length);
  const out = new Uint8Array(words.buffer);
  // Every pixel opaque, whatever its sub-encoding.
  expect(out.filter((_, i) => i % 4 === 3).every((alpha) => alpha === 255)).toBe(true);
  return Array.from({ length: width * height }, (_, i) => [
    out[i * 4]!,
    out[i * 4 + 1]!,
    out[i * 4 + 2]!,
  ]);
}

/** The run-length bytes of RFC 6143 §7.7.6 for a run of `length` pixels. */
function run(length: number): number[] {
  const bytes: number[] = [];
  let left = length - 1;
  while (left >= 255) {
    bytes.push(255);
    left -= 255;
  }
  bytes.push(left);
  return bytes;
}

describe('ZRLE tiles', () => {
  it('decodes raw CPIXELs (sub-encoding 0)', () => {
    expect(tile([0, ...cpixels(red, green, blue, white)], 2, 2)).toEqual([red, green, blue, white]);
  });

  it('decodes a solid tile (sub-encoding 1)', () => {
    expect(tile([1, ...blue], 3, 2)).toEqual(Array(6).fill(blue));
  });

  it('decodes packed palettes at 1, 2 and 4 bits, each row padded to a byte', () => {
    // 2 colours, 10 pixels wide: 2 bytes a row, most significant bit first.
    const twoColours = tile([2, ...cpixels(red, blue), 0b10100000, 0b01000000], 10, 1);
    expect(twoColours).toEqual([blue, red, blue, red, red, red, red, red, red, blue]);
    // 3 colours, 2 bits: 5 pixels = 10 bits = 2 bytes.
    expect(tile([3, ...cpixels(red, green, blue), 0b00011000, 0b01000000], 5, 1)).toEqual([
      red,
      green,
      blue,
      red,
      green,
    ]);
    // 5 colours, 4 bits, 3×2: each row 2 bytes.
    const five = [5, ...cpixels(red, green, blue, white, [1, 2, 3]), 0x01, 0x20, 0x34, 0x00];
    expect(tile(five, 3, 2)).toEqual([red, green, blue, white, [1, 2, 3], red]);
  });

  it('decodes plain RLE with runs longer than 255 (sub-encoding 128)', () => {
    const bytes = [128, ...red, ...run(300), ...green, ...run(4096 - 300)];
    const pixels = tile(bytes, 64, 64);
    expect(pixels.slice(0, 300)).toEqual(Array(300).fill(red));
    expect(pixels.slice(300)).toEqual(Array(4096 - 300).fill(green));
  });

  it('decodes palette RLE: single pixels and runs (sub-encodings 130–255)', () => {
    // Palette of 3: index 2 once, index 0 for 4, index 1 once, index 2 for 2.
    const bytes = [131, ...cpixels(red, green, blue), 2, 0x80, ...run(4), 1, 0x82, ...run(2)];
    expect(tile(bytes, 4, 2)).toEqual([blue, red, red, red, red, green, blue, blue]);
  });

  it('waits for more bytes at every cut of a tile, then decodes it', () => {
    const bytes = Buffer.from([131, ...cpixels(red, green, blue), 2, 0x80, ...run(300), 1]);
    const out = new Uint32Array(302);
    for (let cut = 0; cut < bytes.length; cut++) {
      expect(decodeZrleTile(bytes.subarray(0, cut), 0, 302, 1, out)).toBeUndefined();
    }
    expect(decodeZrleTile(bytes, 0, 302, 1, out)).toBe(bytes.length);
  });

  it.each([
    ['sub-encoding 17', [17], 'sub-encoding 17'],
    ['sub-encoding 129', [129], 'sub-encoding 129'],
    [
      'a packed index past the palette',
      [3, ...cpixels(red, green, blue), 0b11000000, 0],
      'index 3',
    ],
    ['a palette RLE index past the palette', [130, ...cpixels(red, green), 5], 'index 5'],
    ['a plain run past the tile', [128, ...red, ...run(5)], 'run longer'],
    ['a palette run past the tile', [130, ...cpixels(red, green), 0x81, ...run(9)], 'run longer'],
    ['a stream of 255s', [128, ...red, ...Array(100).fill(255)], 'run longer'],
  ])('refuses %s', (_name, bytes, message) => {
    const out = new Uint32Array(4);
    expect(() => decodeZrleTile(Buffer.from(bytes), 0, 2, 2, out)).toThrow(RfbProtocolError);
    expect(() => decodeZrleTile(Buffer.from(bytes), 0, 2, 2, out)).toThrow(message);
  });
});

describe('ZRLE rectangles', () => {
  /** A 130×70 rectangle is 3×2 tiles: 64, 64, 2 wide and 64, 6 high. */
  const rect: Rect = { x: 5, y: 3, width: 130, height: 70 };
  const tileColours: Rgb[] = [red, green, blue, white, [9, 9, 9], [200, 100, 50]];
  const solidTiles = Buffer.from(tileColours.flatMap((colour) => [1, ...colour]));

  const pixelAt = (framebuffer: Framebuffer, x: number, y: number): Rgb => {
    const at = (y * framebuffer.width + x) * 4;
    const pixels = framebuffer.pixels();
    return [pixels[at]!, pixels[at + 1]!, pixels[at + 2]!];
  };

  it('places tiles left to right, then top to bottom, smaller at the edges', () => {
    const framebuffer = new Framebuffer(140, 80);
    const tiles = new ZrleRectTiles(rect, framebuffer);
    // Handed over in awkward pieces, as zlib might.
    for (let at = 0; at < solidTiles.length; at += 5) tiles.push(solidTiles.subarray(at, at + 5));
    expect(tiles.done).toBe(true);
    expect(pixelAt(framebuffer, 5, 3)).toEqual(red);
    expect(pixelAt(framebuffer, 5 + 64, 3 + 63)).toEqual(green);
    expect(pixelAt(framebuffer, 5 + 129, 3)).toEqual(blue);
    expect(pixelAt(framebuffer, 5, 3 + 64)).toEqual(white);
    expect(pixelAt(framebuffer, 5 + 100, 3 + 69)).toEqual([9, 9, 9]);
    expect(pixelAt(framebuffer, 5 + 129, 3 + 69)).toEqual([200, 100, 50]);
    expect(pixelAt(framebuffer, 4, 3)).toEqual([0, 0, 0]);
    expect(pixelAt(framebuffer, 5 + 130, 3)).toEqual([0, 0, 0]);
  });

  it('refuses data past the last tile', () => {
    const tiles = new ZrleRectTiles(rect, new Framebuffer(140, 80));
    expect(() => tiles.push(Buffer.concat([solidTiles, Buffer.from([1])]))).toThrow(
      'past the last tile',
    );
  });

  /** ZRLE payloads as a server makes them: one zlib stream, flushed after each rectangle. */
  async function zrlePayloads(rects: Buffer[]): Promise<Buffer[]> {
    const deflate = createDeflate();
    const payloads: Buffer[] = [];
    for (const data of rects) {
      const compressed = await deflateFlushed(deflate, data);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(compressed.length);
      payloads.push(Buffer.concat([length, compressed]));
    }
    deflate.destroy();
    return payloads;
  }

  it('decodes rectangles that share one zlib stream, read in small pieces', async () => {
    const second: Rect = { x: 0, y: 0, width: 3, height: 1 };
    const payloads = await zrlePayloads([
      solidTiles,
      Buffer.from([0, ...cpixels(blue, red, green)]),
    ]);
    const framebuffer = new Framebuffer(140, 80);
    const decoder = new ZrleDecoder();
    const input = choppedInput(Buffer.concat(payloads), 7, 5);
    const forwarded: Buffer[] = [];
    const forward = (bytes: Buffer) => {
      forwarded.push(bytes);
      return undefined;
    };
    await decoder.readRect(rect, framebuffer, input, forward);
    await decoder.readRect(second, framebuffer, input, forward);
    decoder.close();
    expect(Buffer.concat(forwarded)).toEqual(Buffer.concat(payloads));
    expect([0, 1, 2].map((x) => pixelAt(framebuffer, x, 0))).toEqual([blue, red, green]);
    expect(pixelAt(framebuffer, 5 + 129, 3 + 69)).toEqual([200, 100, 50]);
  });

  it('fails on zlib data that is not zlib, and on data that ends before the tiles', async () => {
    const framebuffer = new Framebuffer(140, 80);
    const garbage = Buffer.from([0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]);
    const broken = new ZrleDecoder();
    await expect(
      broken.readRect(rect, framebuffer, choppedInput(garbage), () => undefined),
    ).rejects.toThrow('a broken ZRLE zlib stream');
    broken.close();

    const [short] = await zrlePayloads([solidTiles.subarray(0, 8)]);
    const decoder = new ZrleDecoder();
    await expect(
      decoder.readRect(rect, framebuffer, choppedInput(short!), () => undefined),
    ).rejects.toThrow('ending before the last tile');
    decoder.close();
  });
});
