import { constants, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeCutText } from './client-messages.js';
import { encodeFence, fenceFlag } from './fence.js';
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
    const endOfContinuous = Buffer.from([serverMessageType.endOfContinuousUpdates]);
    const fence = encodeFence(fenceFlag.request | fenceFlag.blockBefore, Buffer.from([1, 2, 3]));
    for (const seed of [1, 2, 3]) {
      const framebuffer = new Framebuffer(8, 8);
      const sizes: number[][] = [];
      const painted: Rect[][] = [];
      framebuffer.onResize((width, height) => sizes.push([width, height]));
      framebuffer.onUpdate((rects) => painted.push(rects));
      const all = Buffer.concat([update, bell, clipboard, colours, endOfContinuous, fence]);
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
        { type: 'end-of-continuous-updates', wire: endOfContinuous },
        {
          type: 'fence',
          flags: (fenceFlag.request | fenceFlag.blockBefore) >>> 0,
          payload: Buffer.from([1, 2, 3]),
          wire: fence,
        },
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

  /** A ZRLE rectangle of one solid tile (subencoding 1, then one CPIXEL), in a new zlib stream. */
  const solidZrle = (rect: Rect, rgb: [number, number, number]) => {
    const data = deflateSync(Buffer.from([1, ...rgb]), { finishFlush: constants.Z_SYNC_FLUSH });
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([encodeRectHeader(rect, encoding.zrle), length, data]);
  };

  it('ends updates in order, and a CopyRect of the next update copies the tiles before it', async () => {
    const first = { x: 0, y: 0, width: 4, height: 2 };
    const second = { x: 4, y: 0, width: 4, height: 2 };
    const bytes = Buffer.concat([
      encodeUpdateHeader(1),
      solidZrle(first, [50, 60, 70]),
      encodeUpdateHeader(1),
      copy(second, 0, 0),
    ]);
    const framebuffer = new Framebuffer(8, 8);
    const ended: Rect[][] = [];
    framebuffer.onUpdate((rects) => ended.push(rects));
    const { messages } = await readAll(bytes, framebuffer, 1);
    expect(messages.map((message) => message.type)).toEqual(['update', 'update']);
    expect(ended).toEqual([[first], [second]]);
    expect(pixel(framebuffer, 7, 1)).toEqual([50, 60, 70, 255]);
  });

  it('reads on while an update decodes, and reports a broken stream found behind', async () => {
    const broken = Buffer.concat([
      encodeRectHeader({ x: 0, y: 0, width: 4, height: 2 }, encoding.zrle),
      Buffer.from([0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]),
    ]);
    const fence = encodeFence(fenceFlag.request, Buffer.from('rtt'));
    const bytes = Buffer.concat([encodeUpdateHeader(1), broken, fence, fence]);
    const reader = new ServerMessageReader(
      choppedInput(bytes, 1, 64),
      new Framebuffer(8, 8),
      () => undefined,
    );
    // The fence behind the update comes out before zlib has said anything about its data.
    expect((await reader.next()).type).toBe('update');
    expect((await reader.next()).type).toBe('fence');
    expect((await reader.decodeFailed).message).toContain('a broken ZRLE zlib stream');
    await expect(reader.next()).rejects.toThrow('a broken ZRLE zlib stream');
    reader.close();
  });

  it('fails the reader, never the process, when an update listener throws', async () => {
    const framebuffer = new Framebuffer(8, 8);
    framebuffer.onUpdate(() => {
      throw new Error('the listener broke');
    });
    const bytes = Buffer.concat([
      encodeUpdateHeader(1),
      raw({ x: 0, y: 0, width: 1, height: 1 }, [1, 2, 3]),
      Buffer.from([serverMessageType.bell]),
    ]);
    const reader = new ServerMessageReader(
      choppedInput(bytes, 1, 64),
      framebuffer,
      () => undefined,
    );
    expect((await reader.next()).type).toBe('update');
    expect((await reader.decodeFailed).message).toBe('the listener broke');
    await expect(reader.next()).rejects.toThrow('the listener broke');
    reader.close();
  });

  it('refuses an unknown message type', async () => {
    await expect(readAll(Buffer.from([149]), new Framebuffer(8, 8))).rejects.toThrow(
      'unknown type 149',
    );
  });

  it('refuses a Fence with more than 64 bytes of payload', async () => {
    const fence = Buffer.concat([
      Buffer.from([248, 0, 0, 0, 0x80, 0, 0, 0, 200]),
      Buffer.alloc(200),
    ]);
    await expect(readAll(fence, new Framebuffer(8, 8))).rejects.toThrow(
      'Fence with 200 bytes of payload',
    );
  });
});
