import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ByteInput } from './byte-input.js';
import {
  encodeCutText,
  encodeEnableContinuousUpdates,
  encodeKeyEvent,
  encodePointerEvent,
  encodeSetDesktopSize,
  encodeSetEncodings,
  encodeSetPixelFormat,
  encodeUpdateRequest,
  readClientMessage,
} from './client-messages.js';
import { encodeFence, fenceFlag } from './fence.js';
import { proxyPixelFormat, sameLayoutAsProxy, type PixelFormat } from './pixel-format.js';
import { parseVersion, rfbLimits } from './protocol.js';
import { relayedEncodingsOf } from './relayed-encodings.js';
import { RfbProtocolError } from './rfb-errors.js';
import { noVncEncodings } from './rfb-client.testkit.js';
import { choppedInput } from './rfb.testkit.js';

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
    encodeEnableContinuousUpdates(true, { x: 0, y: 0, width: 1024, height: 768 }),
    encodeFence(fenceFlag.blockBefore, Buffer.from('ping')),
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
        'enable-continuous-updates',
        'fence',
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
      expect(read[7]).toMatchObject({
        enable: true,
        rect: { x: 0, y: 0, width: 1024, height: 768 },
      });
      expect(read[8]).toMatchObject({ flags: fenceFlag.blockBefore, payload: Buffer.from('ping') });
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
    [
      'a Fence with more than 64 bytes of payload',
      Buffer.concat([Buffer.from([248, 0, 0, 0, 0, 0, 0, 0, 65]), Buffer.alloc(65)]),
      'Fence with 65 bytes of payload, over the limit of 64',
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
    // Tight (7) with JPEG quality 6 (-26); TightPNG, Hextile, QEMU keys and the rest dropped.
    expect(relayedEncodingsOf(noVncEncodings)).toEqual([
      1, 7, 16, 0, -26, -223, -224, -308, -312, -313, -239,
    ]);
    expect(relayedEncodingsOf([0, 0, 5, 0])).toEqual([0]);
  });
});
