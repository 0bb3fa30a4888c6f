import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ByteInput } from './byte-input.js';
import {
  encodeCutText,
  encodeKeyEvent,
  encodePointerEvent,
  encodeSetDesktopSize,
  encodeSetEncodings,
  encodeSetPixelFormat,
  encodeUpdateRequest,
  readClientMessage,
} from './client-messages.js';
import { Framebuffer, type Rect } from './framebuffer.js';
import { proxyPixelFormat, sameLayoutAsProxy, type PixelFormat } from './pixel-format.js';
import { encoding, parseVersion, rfbLimits, serverMessageType } from './protocol.js';
import { relayedEncodingsOf } from './relayed-encodings.js';
import { RfbProtocolError } from './rfb-errors.js';
import { noVncEncodings } from './rfb-client.testkit.js';
import { choppedInput } from './rfb.testkit.js';
import { encodeScreens } from './screens.js';
import {
  encodeRectHeader,
  encodeUpdateHeader,
  ServerMessageReader,
  type ServerMessage,
} from './server-messages.js';

describe('ProtocolVersion', () => {
  it.each([
    ['RFB 003.008\n', '3.8'],
    ['RFB 003.007\n', '3.7'],
    ['RFB 003.003\n', '3.3'],
    ['RFB 003.005\n', '3.3'],
    ['RFB 003.889\n', '3.8'],
    ['RFB 004.001\n', '3.8'],
    ['RFB 002.000\n', undefined],
    ['SSH-2.0-Open', undefined],
    ['RFB 003.008 ', undefined],
  ])('reads %j as %s', (text, version) => {
    expect(parseVersion(Buffer.from(text, 'latin1'))).toBe(version);
  });
});

describe('pixel formats', () => {
  it("keeps noVNC's format and its big-endian mirror, not the desktops' usual BGRX", () => {
    expect(sameLayoutAsProxy(proxyPixelFormat)).toBe(true);
    const mirrored: PixelFormat = {
      ...proxyPixelFormat,
      bigEndian: true,
      redShift: 24,
      greenShift: 16,
      blueShift: 8,
    };
    expect(sameLayoutAsProxy(mirrored)).toBe(true);
    expect(sameLayoutAsProxy({ ...proxyPixelFormat, redShift: 16, blueShift: 0 })).toBe(false);
    expect(sameLayoutAsProxy({ ...proxyPixelFormat, bitsPerPixel: 16 })).toBe(false);
    expect(sameLayoutAsProxy({ ...proxyPixelFormat, trueColour: false })).toBe(false);
  });
});

describe('client messages', () => {
  const screen = { id: 7, x: 0, y: 0, width: 1024, height: 768, flags: 0 };
  const messages = [
    encodeSetPixelFormat(proxyPixelFormat),
    encodeSetEncodings([16, 0, -239]),
    encodeUpdateRequest(true, { x: 1, y: 2, width: 300, height: 200 }),
    encodeKeyEvent(true, 0xff0d),
    encodePointerEvent(5, 640, 480),
    encodeCutText(Buffer.from('héllo', 'latin1')),
    encodeSetDesktopSize(1024, 768, [screen]),
  ];

  it('reads every message whatever the chunks, keeping its bytes', async () => {
    for (const seed of [1, 2, 3]) {
      const input = choppedInput(Buffer.concat(messages), seed, 5);
      const read = [];
      for (let i = 0; i < messages.length; i++) read.push(await readClientMessage(input));
      expect(read.map((message) => message.type)).toEqual([
        'set-pixel-format',
        'set-encodings',
        'update-request',
        'key',
        'pointer',
        'cut-text',
        'set-desktop-size',
      ]);
      read.forEach((message, i) => expect(message.wire).toEqual(messages[i]));
      expect(read[1]).toMatchObject({ encodings: [16, 0, -239] });
      expect(read[2]).toMatchObject({
        incremental: true,
        rect: { x: 1, y: 2, width: 300, height: 200 },
      });
      expect(read[3]).toMatchObject({ down: true, keysym: 0xff0d });
      expect(read[4]).toMatchObject({ buttons: 5, x: 640, y: 480 });
      expect(read[6]).toMatchObject({ width: 1024, height: 768, screens: [screen] });
    }
  });

  it('reads past a clipboard text over the limit without keeping it, and goes on', async () => {
    const long = encodeCutText(Buffer.alloc(rfbLimits.cutTextBytes + 1, 0x61));
    const input = choppedInput(Buffer.concat([long, encodeKeyEvent(false, 0x61)]), 1, 64 * 1024);
    expect(await readClientMessage(input)).toEqual({
      type: 'cut-text',
      length: rfbLimits.cutTextBytes + 1,
    });
    expect(await readClientMessage(input)).toMatchObject({ type: 'key', keysym: 0x61 });
  });

  it('holds no more than a chunk of an over-long clipboard text while reading past it', async () => {
    const stream = new PassThrough();
    const input = new ByteInput(stream, 'the browser');
    const length = 16 * 1024 * 1024;
    const read = readClientMessage(input);
    const header = encodeCutText(Buffer.alloc(0));
    header.writeUInt32BE(length, 4);
    stream.write(header);
    const piece = Buffer.alloc(64 * 1024, 0x61);
    let most = 0;
    for (let sent = 0; sent < length; sent += piece.length) {
      stream.write(piece);
      await new Promise((resolve) => setImmediate(resolve));
      most = Math.max(most, input.length);
    }
    expect(await read).toEqual({ type: 'cut-text', length });
    expect(most).toBeLessThanOrEqual(piece.length);
  });

  it.each([
    ['an unknown type', Buffer.from([99]), 'unknown type 99'],
    [
      'too many encodings',
      encodeSetEncodings(Array(rfbLimits.encodings + 1).fill(0)),
      'SetEncodings with 1025',
    ],
    [
      'an Extended Clipboard length',
      Buffer.from([6, 0, 0, 0, 0xff, 0xff, 0xff, 0xf0]),
      'Extended Clipboard',
    ],
    ['SetDesktopSize with no screen', encodeSetDesktopSize(800, 600, []), 'with 0 screens'],
    [
      'a pixel format of 24 bits',
      Buffer.concat([Buffer.from([0, 0, 0, 0, 24]), Buffer.alloc(15)]),
      '24 bits',
    ],
  ])('refuses %s', async (_name, bytes, message) => {
    const read = readClientMessage(choppedInput(bytes));
    await expect(read).rejects.toThrow(RfbProtocolError);
    await expect(read).rejects.toThrow(message);
  });

  it("keeps only the encodings the proxy reads, in the browser's order", () => {
    expect(relayedEncodingsOf(noVncEncodings)).toEqual([1, 16, 0, -223, -224, -308, -239]);
    expect(relayedEncodingsOf([0, 0, 5, 0])).toEqual([0]);
  });
});

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
