import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startXvnc, type RunningXvnc } from '../../../testing/xvnc.testkit.js';
import { rgbaToXwd, xwdToRgba } from '../../../testing/xwd.testkit.js';
import { ByteInput } from './byte-input.js';
import { ByteOutput } from './byte-output.js';
import type { Framebuffer } from './framebuffer.js';
import { handshakeAsClient } from './handshake-as-client.js';
import { encoding } from './protocol.js';
import type { ClipboardEvent } from './relay.testkit.js';
import { noVncEncodings, TestRfbClient } from './rfb-client.testkit.js';
import { eventually, socketPair, until } from './rfb.testkit.js';
import { startVncRelay, type VncRelayOptions, type VncSession } from './vnc-relay.js';

/** A relay from a test client (noVNC-like) to `xvnc` over loopback. */
async function relayTo(
  xvnc: RunningXvnc,
  relay: Partial<VncRelayOptions> = {},
  encodings = noVncEncodings,
) {
  const desktop = connect(xvnc.port, xvnc.host);
  const browser = await socketPair();
  const clipboard: ClipboardEvent[] = [];
  const [session, client] = await Promise.all([
    startVncRelay({
      browser: browser.server,
      desktop,
      clipboard: { toDesktop: true, fromDesktop: true },
      onClipboard: (direction, bytes, allowed) => clipboard.push({ direction, bytes, allowed }),
      ...relay,
    }),
    TestRfbClient.connect(browser.client, encodings),
  ]);
  return { session, client, clipboard };
}

const sameScreen = (a: Framebuffer | VncSession['framebuffer'], rgba: Uint8Array) =>
  Buffer.from(a.pixels()).equals(Buffer.from(rgba));

/** Every pixel of the screen is this colour. */
function allOneColour(framebuffer: { pixels(): Uint8Array }, [r, g, b]: number[]): boolean {
  const pixels = framebuffer.pixels();
  for (let at = 0; at < pixels.length; at += 4) {
    if (pixels[at] !== r || pixels[at + 1] !== g || pixels[at + 2] !== b) return false;
  }
  return true;
}

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
        client.encodingsSeen.has(encoding.zrle),
      'the browser’s screen in #102030, sent as ZRLE',
    );
    session.close('test over');
  });

  it('decodes ZRLE to exactly the X server’s screen (xwd), as a Raw-only session sees it', async () => {
    const [width, height, left, top] = [300, 200, 20, 30];
    const image = everyKindOfTile(width, height);
    const file = path.join(xvnc.dir, 'tiles.xwd');
    await writeFile(file, rgbaToXwd(width, height, image));
    const zrle = await relayTo(xvnc);
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
      return [zrle.session.framebuffer, zrle.client.framebuffer, raw.session.framebuffer].every(
        (framebuffer) => sameScreen(framebuffer, screen),
      );
    }, 'the decoded screens to match xwd');
    expect([...raw.client.encodingsSeen].filter((kind) => kind >= 0)).toEqual([encoding.raw]);
    zrle.session.close('test over');
    raw.session.close('test over');
  });
});

/**
 * An image that makes TigerVNC's ZRLE use every kind of tile: noise (raw CPIXELs), runs of 40
 * colours (palette RLE), three colours in stripes (packed palette), runs of hundreds of colours
 * (plain RLE); the desktop around it is flat (solid).
 */
function everyKindOfTile(width: number, height: number): Uint8Array {
  const image = new Uint8Array(width * height * 4);
  let seed = 7;
  const stripes = [
    [255, 0, 0],
    [0, 0, 255],
    [250, 250, 250],
  ];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      let colour: number[];
      if (y < 64) colour = [seed & 255, (seed >> 8) & 255, (seed >> 16) & 255];
      else if (y < 128) {
        const index = ((x >> 3) + (y >> 2)) % 40;
        colour = [index * 6, 255 - index * 6, (index * 37) % 256];
      } else if (y < 160) colour = stripes[(x >> 2) % 3]!;
      else colour = [(y * 6) % 256, (x >> 3) * 7, 90];
      image.set([...colour, 255], (y * width + x) * 4);
    }
  }
  return image;
}

describe('the VNC relay with a real Xvnc (VNC Authentication)', () => {
  const password = 'sesame42';
  let xvnc: RunningXvnc;
  beforeAll(async () => {
    xvnc = await startXvnc({ password });
  });
  afterAll(() => xvnc.stop());

  it('signs in with the password, which never reaches the browser', async () => {
    const { session, client } = await relayTo(xvnc, { password });
    await client.until(() => client.updates > 0, 'the first update');
    expect(client.handshake.security).toBe(1);
    expect(client.bytes().includes(password)).toBe(false);
    session.close('test over');
  });

  it('rejects a wrong password, or none, with a message for people', async () => {
    await expect(relayTo(xvnc, { password: 'wrong' })).rejects.toThrow(
      /^the desktop refused its password/,
    );
    await expect(relayTo(xvnc)).rejects.toThrow(
      'the desktop asks for a VNC password and none is set for it',
    );
  });

  it('signs in to an Xvnc that speaks only RFB 3.3', async () => {
    const old = await startXvnc({ password, args: ['-Protocol3.3'] });
    try {
      const { session, client } = await relayTo(old, { password });
      await client.until(() => client.updates > 0, 'the first update');
      session.close('test over');
    } finally {
      await old.stop();
    }
  });
});

describe('the VNC relay with a real Xvnc: clipboard, keyboard, bad input', () => {
  let xvnc: RunningXvnc;
  beforeAll(async () => {
    xvnc = await startXvnc();
  });
  afterAll(() => xvnc.stop());

  /** Makes `text` the X clipboard, as copying in a desktop application would. */
  function copyInDesktop(text: string): void {
    const xclip = xvnc.run('xclip', ['-selection', 'clipboard', '-quiet'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    xclip.stdin?.end(text);
  }
  const pasteInDesktop = async () =>
    (await xvnc.exec('xclip', ['-o', '-selection', 'clipboard'])).toString();

  it.each([true, false])(
    'relays what is copied on the desktop only when allowed (%s)',
    async (allowed) => {
      const { session, client, clipboard } = await relayTo(xvnc, {
        clipboard: { toDesktop: true, fromDesktop: allowed },
      });
      await client.until(() => client.updates > 0, 'the first update');
      const text = `copied on the desktop, ${allowed}`;
      copyInDesktop(text);
      await until(() => clipboard.length > 0, 'the clipboard to be reported');
      expect(clipboard).toEqual([{ direction: 'from-desktop', bytes: text.length, allowed }]);
      if (allowed) {
        await client.until(() => client.cutTexts.length > 0, 'the text in the browser');
        expect(client.cutTexts.map(String)).toEqual([text]);
      } else {
        // Whatever follows the dropped text still arrives, the text never does.
        client.send(Buffer.from([3, 0, 0, 0, 0, 0, 0, 1, 0, 1]));
        const updates = client.updates;
        await client.until(() => client.updates > updates, 'a later update');
        expect(client.cutTexts).toEqual([]);
      }
      session.close('test over');
    },
  );

  it.each([true, false])(
    'relays what the browser pastes only when allowed (%s)',
    async (allowed) => {
      const { session, client, clipboard } = await relayTo(xvnc, {
        clipboard: { toDesktop: allowed, fromDesktop: true },
      });
      await client.until(() => client.updates > 0, 'the first update');
      const text = `pasted from the browser, ${allowed}`;
      client.cutText(text);
      await until(() => clipboard.length > 0, 'the clipboard to be reported');
      expect(clipboard).toEqual([{ direction: 'to-desktop', bytes: text.length, allowed }]);
      if (allowed) {
        await eventually(async () => (await pasteInDesktop()) === text, 'the text on the desktop');
      } else {
        // A key typed after the text is handled once the text would have been.
        client.key(0xffe1, true);
        client.key(0xffe1, false);
        expect(await pasteInDesktop().catch(() => '')).not.toBe(text);
      }
      session.close('test over');
    },
  );

  it('types through the relay into an xterm on the desktop', async () => {
    const { session, client } = await relayTo(xvnc);
    await client.until(() => client.updates > 0, 'the first update');
    xvnc.run('xterm', ['-geometry', '80x24+0+0', '-T', 'typing', '-e', 'sh']);
    await eventually(
      async () => (await xvnc.exec('xwininfo', ['-name', 'typing'])).includes('IsViewable'),
      'the xterm',
    );
    // No window manager: keys go to the window under the pointer.
    client.pointer(100, 100);
    const file = path.join(xvnc.dir, 'typed');
    client.type(`echo relayed > ${file}\n`);
    await eventually(
      async () => (await readFile(file, 'utf8')) === 'relayed\n',
      'the file the xterm wrote',
    );
    session.close('test over');
  });

  it('ends a session whose browser sends garbage, and Xvnc serves the next one', async () => {
    const bad = await relayTo(xvnc);
    await bad.client.until(() => bad.client.updates > 0, 'the first update');
    bad.client.send(Buffer.from([200, 1, 2, 3]));
    expect(await bad.session.closed).toEqual({
      reason: 'protocol error: the browser sent a client message of unknown type 200',
      error: true,
    });
    const next = await relayTo(xvnc);
    await next.client.until(() => next.client.updates > 0, 'the next session’s update');
    next.session.close('test over');
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
