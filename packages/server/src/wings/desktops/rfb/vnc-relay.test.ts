import { describe, expect, it } from 'vitest';
import { encodeCutText, encodeKeyEvent, encodeSetPixelFormat } from './client-messages.js';
import { proxyPixelFormat } from './pixel-format.js';
import { encoding, serverMessageType } from './protocol.js';
import { relayedSession } from './relay.testkit.js';
import { until } from './rfb.testkit.js';
import { encodeScreens } from './screens.js';
import { encodeRectHeader, encodeUpdateHeader } from './server-messages.js';

const bell = Buffer.from([serverMessageType.bell]);
const serverCutText = (text: string) =>
  encodeCutText(Buffer.from(text, 'latin1'), serverMessageType.serverCutText);

describe('the VNC relay: clipboard', () => {
  it.each([true, false])(
    'relays clipboard text from the desktop only when allowed (%s)',
    async (allowed) => {
      const { client, peer, session, clipboard } = await relayedSession(
        {},
        { clipboard: { toDesktop: true, fromDesktop: allowed } },
      );
      peer.write(Buffer.concat([serverCutText('from the desktop'), bell]));
      await client.until(() => client.bells === 1, 'the bell after the clipboard');
      expect(client.cutTexts.map(String)).toEqual(allowed ? ['from the desktop'] : []);
      expect(clipboard).toEqual([{ direction: 'from-desktop', bytes: 16, allowed }]);
      session.close('test over');
    },
  );

  it.each([true, false])(
    'relays clipboard text to the desktop only when allowed (%s)',
    async (allowed) => {
      const { client, peer, session, clipboard } = await relayedSession(
        {},
        { clipboard: { toDesktop: allowed, fromDesktop: true } },
      );
      client.cutText('to the desktop');
      client.key(0x61, true);
      const key = await peer.nextOf('key');
      expect(key.keysym).toBe(0x61);
      const texts = peer.received.filter((message) => message.type === 'cut-text');
      expect(texts.map((message) => message.wire?.subarray(8).toString())).toEqual(
        allowed ? ['to the desktop'] : [],
      );
      expect(clipboard).toEqual([{ direction: 'to-desktop', bytes: 14, allowed }]);
      session.close('test over');
    },
  );

  it('drops clipboard text over the limit as it passes, and the session goes on', async () => {
    const { client, peer, session, clipboard } = await relayedSession();
    const size = 3 * 1024 * 1024;
    client.send(encodeCutText(Buffer.alloc(size, 0x61)));
    client.send(encodeKeyEvent(true, 0x62));
    expect((await peer.nextOf('key')).keysym).toBe(0x62);
    expect(peer.received.some((message) => message.type === 'cut-text')).toBe(false);
    expect(clipboard).toEqual([{ direction: 'to-desktop', bytes: size, allowed: false }]);
    session.close('test over');
  });
});

describe('the VNC relay: bad input', () => {
  it.each<[string, (relayed: Awaited<ReturnType<typeof relayedSession>>) => void, string]>([
    [
      'an unknown message from the desktop',
      ({ peer }) => peer.write(Buffer.from([99])),
      'protocol error: the desktop sent a server message of unknown type 99',
    ],
    [
      'ZRLE that is not zlib from the desktop',
      ({ peer }) =>
        peer.write(
          Buffer.concat([
            encodeUpdateHeader(1),
            encodeRectHeader({ x: 0, y: 0, width: 8, height: 8 }, encoding.zrle),
            Buffer.from([0, 0, 0, 6, 1, 2, 3, 4, 5, 6]),
          ]),
        ),
      'protocol error: the desktop sent a broken ZRLE zlib stream',
    ],
    [
      'a rectangle off the screen from the desktop',
      ({ peer }) =>
        peer.write(
          Buffer.concat([
            encodeUpdateHeader(1),
            encodeRectHeader({ x: 60, y: 0, width: 8, height: 1 }, encoding.raw),
          ]),
        ),
      'protocol error: the desktop sent a Raw rectangle at 60,0 of 8×1 going past the 64×48 screen',
    ],
    [
      'an unknown message from the browser',
      ({ client }) => client.send(Buffer.from([77, 1, 2, 3])),
      'protocol error: the browser sent a client message of unknown type 77',
    ],
    [
      'an Extended Clipboard message from the browser',
      ({ client }) => client.send(Buffer.from([6, 0, 0, 0, 0x80, 0, 0, 4, 0, 0, 0, 1])),
      'protocol error: the browser sent ClientCutText in the Extended Clipboard format',
    ],
    [
      'a 16-bit pixel format from the browser',
      ({ client }) =>
        client.send(encodeSetPixelFormat({ ...proxyPixelFormat, bitsPerPixel: 16, depth: 16 })),
      'protocol error: the browser sent a pixel format of 16-bit little-endian true colour',
    ],
  ])('ends only that session on %s', async (_name, misbehave, reason) => {
    const relayed = await relayedSession();
    const other = await relayedSession();
    misbehave(relayed);
    const end = await relayed.session.closed;
    expect(end.error).toBe(true);
    expect(end.reason).toContain(reason);
    await until(
      () => relayed.browserEnd.destroyed && relayed.desktopEnd.destroyed,
      'both ends closed',
    );
    await relayed.client.ended;
    // The other session carries on.
    other.client.key(0x63, true);
    expect((await other.peer.nextOf('key')).keysym).toBe(0x63);
    other.session.close('test over');
  });
});

describe('the VNC relay: resizing, backpressure, closing', () => {
  const extendedDesktopSize = (width: number, height: number, reason = 0) =>
    Buffer.concat([
      encodeUpdateHeader(1),
      encodeRectHeader({ x: reason, y: 0, width, height }, encoding.extendedDesktopSize),
      Buffer.from([1, 0, 0, 0]),
      encodeScreens([{ id: 1, x: 0, y: 0, width, height, flags: 0 }]),
    ]);

  it('passes SetDesktopSize once the desktop announced ExtendedDesktopSize, and follows', async () => {
    const { client, peer, session } = await relayedSession();
    client.setDesktopSize(100, 80);
    client.key(0x31, true);
    await peer.nextOf('key');
    expect(peer.received.some((message) => message.type === 'set-desktop-size')).toBe(false);

    peer.write(extendedDesktopSize(64, 48));
    await client.until(() => client.resizable, 'the announcement');
    client.setDesktopSize(100, 80);
    expect(await peer.nextOf('set-desktop-size')).toMatchObject({ width: 100, height: 80 });
    const sizes: number[][] = [];
    session.framebuffer.onResize((width, height) => sizes.push([width, height]));
    peer.write(extendedDesktopSize(100, 80, 1));
    await client.until(() => client.framebuffer.width === 100, 'the new size');
    expect(sizes).toEqual([[100, 80]]);
    expect([session.framebuffer.width, session.framebuffer.height]).toEqual([100, 80]);
    session.close('test over');
  });

  it('holds the desktop back while the browser does not read, and nothing piles up', async () => {
    const { client, peer, session, browserEnd, desktopEnd } = await relayedSession({
      width: 512,
      height: 512,
    });
    await peer.nextOf('update-request');
    client.pauseReading();
    const rect = { x: 0, y: 0, width: 512, height: 512 };
    const update = Buffer.concat([
      encodeUpdateHeader(1),
      encodeRectHeader(rect, encoding.raw),
      Buffer.alloc(512 * 512 * 4, 0x40),
    ]);
    const updates = 64; // 64 MiB: more than loopback's socket buffers hold.
    for (let i = 0; i < updates; i++) peer.write(update);
    let last = -1;
    await until(() => {
      const stalled = peer.socket.writableLength === last && last > 0;
      last = peer.socket.writableLength;
      return stalled;
    }, 'the desktop to be held back');
    expect(browserEnd.writableLength).toBeLessThan(256 * 1024);
    expect(desktopEnd.readableLength).toBeLessThan(256 * 1024);
    client.resumeReading();
    await client.until(() => client.updates === updates, 'every update', 30_000);
    expect(peer.socket.writableLength).toBe(0);
    session.close('test over');
  });

  it('closes both sides on close(reason), reporting that reason', async () => {
    const { client, session, desktopEnd } = await relayedSession();
    session.close('locked by an administrator');
    expect(await session.closed).toEqual({ reason: 'locked by an administrator', error: false });
    expect(await client.ended).toBeUndefined();
    await until(() => desktopEnd.destroyed, 'the desktop connection closed');
  });

  it('reports which side left', async () => {
    const first = await relayedSession();
    first.client.close();
    expect(await first.session.closed).toEqual({
      reason: 'the browser closed the connection',
      error: false,
    });
    const second = await relayedSession();
    second.peer.socket.end();
    expect(await second.session.closed).toEqual({
      reason: 'the desktop closed the connection',
      error: false,
    });
    expect(await second.client.ended).toBeUndefined();
  });
});
