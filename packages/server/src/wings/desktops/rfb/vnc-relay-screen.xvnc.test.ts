import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startXvnc, type RunningXvnc } from '../../../testing/xvnc.testkit.js';
import { rgbaToXwd, xwdToRgba } from '../../../testing/xwd.testkit.js';
import { ByteInput } from './byte-input.js';
import { ByteOutput } from './byte-output.js';
import { handshakeAsClient } from './handshake-as-client.js';
import { encoding } from './protocol.js';
import { noVncEncodings } from './rfb-client.testkit.js';
import { eventually, until } from './rfb.testkit.js';
import { allOneColour, everyKindOfTile, relayTo, sameScreen } from './xvnc-relay.testkit.js';

describe('the VNC relay with a real Xvnc (security None)', () => {
  let xvnc: RunningXvnc;
  beforeAll(async () => {
    xvnc = await startXvnc({ width: 640, height: 480 });
  });
  afterAll(() => xvnc.stop());

  it('speaks RFB 3.8 and offers None, as configured', async () => {
    const socket = connect(xvnc.port, xvnc.host);
    const input = new ByteInput(socket, 'the desktop');
    const handshake = await handshakeAsClient(input, new ByteOutput(socket, 'the desktop'), {
      shared: true,
    });
    expect(handshake.version).toBe('3.8');
    expect(handshake.security).toBe(1);
    expect(handshake.serverInit).toMatchObject({ width: 640, height: 480 });
    expect(handshake.serverInit.name).toContain('postern-test');
    socket.destroy();
  });

  it('shows xsetroot’s colour in the proxy’s copy and on the browser’s screen', async () => {
    const { session, client } = await relayTo(xvnc);
    await client.until(() => client.updates > 0, 'the first update');
    await xvnc.exec('xsetroot', ['-solid', '#102030']);
    await until(
      () => allOneColour(session.framebuffer, [0x10, 0x20, 0x30]),
      'the proxy’s copy in #102030',
    );
    await client.until(
      () =>
        allOneColour(client.framebuffer, [0x10, 0x20, 0x30]) &&
        client.encodingsSeen.has(encoding.tight),
      'the browser’s screen in #102030, sent as Tight (noVNC’s first choice)',
    );
    session.close('test over');
  });

  it('relays Fence and ContinuousUpdates: the screen keeps coming without a request per update', async () => {
    const { session, client } = await relayTo(xvnc);
    await client.until(
      () => client.continuousUpdates && client.fences > 0,
      'Xvnc offering ContinuousUpdates and asking a fence, through the proxy',
    );
    const unaskedBefore = client.unaskedUpdates;
    for (const colour of ['#203040', '#304050', '#405060']) {
      await xvnc.exec('xsetroot', ['-solid', colour]);
      const rgb = [1, 3, 5].map((at) => parseInt(colour.slice(at, at + 2), 16));
      await client.until(() => allOneColour(client.framebuffer, rgb), `the browser in ${colour}`);
      await until(() => allOneColour(session.framebuffer, rgb), `the proxy’s copy in ${colour}`);
    }
    // The client asks nothing once ContinuousUpdates are on: these updates came unasked.
    expect(client.unaskedUpdates).toBeGreaterThan(unaskedBefore);
    session.close('test over');
  });

  it('with pixels off, forwards the screen undecoded and follows only its size', async () => {
    const { session, client } = await relayTo(xvnc, { pixels: false });
    await client.until(() => client.resizable, 'ExtendedDesktopSize from Xvnc');
    await xvnc.exec('xsetroot', ['-solid', '#605040']);
    await client.until(
      () => allOneColour(client.framebuffer, [0x60, 0x50, 0x40]),
      'the browser’s screen in #605040',
    );
    // The proxy's copy was never painted: opaque black, as it starts.
    expect(allOneColour(session.framebuffer, [0, 0, 0])).toBe(true);
    client.setDesktopSize(720, 400);
    await until(() => session.framebuffer.width === 720, 'the proxy’s copy at 720×400');
    await client.until(() => client.framebuffer.width === 720, 'the browser at 720×400');
    expect(session.framebuffer.height).toBe(400);
    client.setDesktopSize(640, 480);
    await until(() => session.framebuffer.width === 640, 'back at 640×480');
    session.close('test over');
  });

  it('decodes ZRLE and lossless Tight to exactly the X server’s screen (xwd), as a Raw-only session sees it', async () => {
    const [width, height, left, top] = [300, 200, 20, 30];
    const image = everyKindOfTile(width, height);
    const file = path.join(xvnc.dir, 'tiles.xwd');
    await writeFile(file, rgbaToXwd(width, height, image));
    const withoutTight = noVncEncodings.filter((kind) => kind !== encoding.tight);
    const zrle = await relayTo(xvnc, {}, withoutTight);
    // Tight with no JPEG quality level asked: fills, palettes and zlib, never JPEG.
    const losslessTight = noVncEncodings.filter(
      (kind) => kind !== encoding.zrle && (kind < -32 || kind > -23),
    );
    const tight = await relayTo(xvnc, {}, losslessTight);
    // With Cursor, Xvnc sends the pointer apart instead of drawing it into the screen (xwd
    // leaves it out too).
    const raw = await relayTo(xvnc, {}, [encoding.raw, encoding.cursor]);
    xvnc.run('xwud', ['-in', file, '-geometry', `+${left}+${top}`]);
    xvnc.run('xterm', [
      '-geometry',
      '40x10+340+40',
      '-T',
      'text',
      '-e',
      'sh',
      '-c',
      'ls -la /; sleep 60',
    ]);
    await eventually(
      async () => (await xvnc.exec('xwininfo', ['-name', 'text'])).includes('IsViewable'),
      'the xterm',
    );

    await eventually(async () => {
      const screen = xwdToRgba(await xvnc.exec('xwd', ['-root', '-silent'])).rgba;
      // The image must be on screen first (xwud has a border: the image starts inside it).
      const shown = (row: number) => {
        const at = ((top + row) * 640 + left) * 4;
        const line = Buffer.from(image.subarray(row * width * 4, (row + 1) * width * 4));
        return Buffer.from(screen).indexOf(line, at - 16 * 4) !== -1;
      };
      if (![0, 63, 100, 150, 199].every(shown)) return false;
      // The browser's last pixels may be in before the end of their update (a LastRect).
      if (!zrle.client.encodingsSeen.has(encoding.zrle)) return false;
      if (!tight.client.encodingsSeen.has(encoding.tight)) return false;
      return [
        zrle.session.framebuffer,
        zrle.client.framebuffer,
        tight.session.framebuffer,
        tight.client.framebuffer,
        raw.session.framebuffer,
      ].every((framebuffer) => sameScreen(framebuffer, screen));
    }, 'the decoded screens to match xwd');
    expect(zrle.client.encodingsSeen.has(encoding.tight)).toBe(false);
    expect(tight.client.encodingsSeen.has(encoding.zrle)).toBe(false);
    expect([...raw.client.encodingsSeen].filter((kind) => kind >= 0)).toEqual([encoding.raw]);
    // Not asked for, so never offered: every update of that session answered a request.
    expect([raw.client.fences, raw.client.unaskedUpdates]).toEqual([0, 0]);
    expect(raw.client.continuousUpdates).toBe(false);
    zrle.session.close('test over');
    tight.session.close('test over');
    raw.session.close('test over');
  });
});

describe('the VNC relay with a real Xvnc: resizing', () => {
  let xvnc: RunningXvnc;
  beforeAll(async () => {
    xvnc = await startXvnc({ width: 640, height: 480 });
  });
  afterAll(() => xvnc.stop());

  it('passes SetDesktopSize once Xvnc announced ExtendedDesktopSize, and follows the size', async () => {
    const { session, client } = await relayTo(xvnc);
    await client.until(() => client.resizable, 'ExtendedDesktopSize from Xvnc');
    const sizes: number[][] = [];
    session.framebuffer.onResize((width, height) => sizes.push([width, height]));
    client.setDesktopSize(800, 600);
    await until(() => session.framebuffer.width === 800, 'the proxy’s copy at 800×600');
    await client.until(() => client.framebuffer.width === 800, 'the browser at 800×600');
    expect(sizes).toEqual([[800, 600]]);
    expect(session.framebuffer.pixels().length).toBe(800 * 600 * 4);
    expect((await xvnc.exec('xdpyinfo', [])).toString()).toContain('dimensions:    800x600 pixels');
    await xvnc.exec('xsetroot', ['-solid', '#405060']);
    await until(
      () => allOneColour(session.framebuffer, [0x40, 0x50, 0x60]),
      'the new screen painted',
    );
    session.close('test over');
  });
});
