import { describe, expect, it } from 'vitest';
import { encodeCutText } from './client-messages.js';
import { Framebuffer, type Rect } from './framebuffer.js';
import { encoding, serverMessageType } from './protocol.js';
import { choppedInput } from './rfb.testkit.js';
import { encodeScreens } from './screens.js';
import {
  encodeRectHeader,
  encodeUpdateHeader,
  ServerMessageReader,
  type ServerMessage,
} from './server-messages.js';

describe('server messages', () => {
  const raw = (rect: Rect, rgb: [number, number, number]) =>
    Buffer.concat([
      encodeRectHeader(rect, encoding.raw),
      Buffer.from(
        Array(rect.width * rect.height)
          .fill([...rgb, 0])
          .flat(),
      ),
    ]);
  const copy = (rect: Rect, fromX: number, fromY: number) => {
    const source = Buffer.alloc(4);
    source.writeUInt16BE(fromX, 0);
    source.writeUInt16BE(fromY, 2);
    return Buffer.concat([encodeRectHeader(rect, encoding.copyRect), source]);
  };
  const extendedSize = (width: number, height: number) =>
    Buffer.concat([
      encodeRectHeader({ x: 0, y: 0, width, height }, encoding.extendedDesktopSize),
      Buffer.from([1, 0, 0, 0]),
      encodeScreens([{ id: 1, x: 0, y: 0, width, height, flags: 0 }]),
    ]);
  const cursor = Buffer.concat([
    encodeRectHeader({ x: 1, y: 1, width: 9, height: 2 }, encoding.cursor),
    Buffer.alloc(9 * 2 * 4 + 2 * 2),
  ]);

  async function readAll(bytes: Buffer, framebuffer: Framebuffer, seed = 1) {
    const forwarded: Buffer[] = [];
    const reader = new ServerMessageReader(choppedInput(bytes, seed, 9), framebuffer, (piece) => {
      forwarded.push(piece);
      return undefined;
    });
    const messages: ServerMessage[] = [];
    try {
      for (;;) messages.push(await reader.next());
    } catch (error) {
      if ((error as Error).name !== 'PeerGoneError') throw error;
    } finally {
      reader.close();
    }
    return { messages, forwarded: Buffer.concat(forwarded) };
  }

  const pixel = (framebuffer: Framebuffer, x: number, y: number) => [
    ...framebuffer
      .pixels()
      .subarray((y * framebuffer.width + x) * 4, (y * framebuffer.width + x) * 4 + 4),
  ];

  it('streams an update through, painting Raw and CopyRect, following resizes', async () => {
    const update = Buffer.concat([
      encodeUpdateHeader(6),
      extendedSize(20, 10),
      raw({ x: 0, y: 0, width: 4, height: 2 }, [10, 20, 30]),
      copy({ x: 10, y: 5, width: 4, height: 2 }, 0, 0),
      cursor,
      encodeRectHeader({ x: 0, y: 0, width: 0, height: 0 }, encoding.lastRect),
    ]);
    const bell = Buffer.from([serverMessageType.bell]);
    const clipboard = encodeCutText(Buffer.from('copied'), serverMessageType.serverCutText);
    const colours = Buffer.from([1, 0, 0, 0, 0, 1, 0, 1, 0, 2, 0, 3]);
    for (const seed of [1, 2, 3]) {
      const framebuffer = new Framebuffer(8, 8);
      const sizes: number[][] = [];
      const painted: Rect[][] = [];
      framebuffer.onResize((width, height) => sizes.push([width, height]));
      framebuffer.onUpdate((rects) => painted.push(rects));
      const all = Buffer.concat([update, bell, clipboard, colours]);
      const { messages, forwarded } = await readAll(all, framebuffer, seed);
      expect(messages).toEqual([
        {
          type: 'update',
          rects: [
            { x: 0, y: 0, width: 4, height: 2 },
            { x: 10, y: 5, width: 4, height: 2 },
          ],
          resizable: true,
          encodings: [encoding.extendedDesktopSize, 0, 1, encoding.cursor, encoding.lastRect],
        },
        { type: 'bell', wire: bell },
        { type: 'cut-text', length: 6, wire: clipboard },
        { type: 'colour-map', wire: colours },
      ]);
      expect(forwarded).toEqual(update);
      expect(sizes).toEqual([[20, 10]]);
      expect(painted).toEqual([(messages[0] as { rects: Rect[] }).rects]);
      expect(pixel(framebuffer, 3, 1)).toEqual([10, 20, 30, 255]);
      expect(pixel(framebuffer, 13, 6)).toEqual([10, 20, 30, 255]);
      expect(pixel(framebuffer, 14, 6)).toEqual([0, 0, 0, 255]);
    }
  });

  it.each([
    [
      'a rectangle past the screen',
      raw({ x: 6, y: 0, width: 4, height: 1 }, [1, 1, 1]),
      'going past the 8×8 screen',
    ],
    [
      'a CopyRect source past the screen',
      copy({ x: 0, y: 0, width: 2, height: 2 }, 7, 7),
      'CopyRect source',
    ],
    [
      'an encoding not asked for',
      encodeRectHeader({ x: 0, y: 0, width: 1, height: 1 }, 5),
      'encoding 5',
    ],
    [
      'a huge cursor',
      encodeRectHeader({ x: 0, y: 0, width: 4000, height: 1 }, encoding.cursor),
      'cursor',
    ],
    [
      'a screen too large',
      encodeRectHeader({ x: 0, y: 0, width: 9000, height: 10 }, encoding.desktopSize),
      'over the limit',
    ],
  ])('refuses %s', async (_name, rect, message) => {
    const bytes = Buffer.concat([encodeUpdateHeader(1), rect]);
    await expect(readAll(bytes, new Framebuffer(8, 8))).rejects.toThrow(message);
  });

  it('refuses an unknown message type', async () => {
    await expect(readAll(Buffer.from([150]), new Framebuffer(8, 8))).rejects.toThrow(
      'unknown type 150',
    );
  });
});
