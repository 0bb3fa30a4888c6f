import { writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFreerdpShadow,
  type RunningFreerdpShadow,
} from '../../../testing/freerdp-shadow.testkit.js';
import { rgbaToXwd, xwdToRgba } from '../../../testing/xwd.testkit.js';
import { eventually } from '../rfb/rfb.testkit.js';
import { everyKindOfTile } from '../rfb/xvnc-relay.testkit.js';
import { RdpClient } from './rdp-client.js';
import { startRdpRelay } from './rdp-relay.js';

// Postern's RDP client against a real server that requires Network Level Authentication:
// FreeRDP's shadow server (`/sec:nla`, NTLM against a SAM file) shadowing an Xvnc. It refuses
// anything but CredSSP, checks the NTLMv2 proof and the public key binding, and sends the screen
// as fast-path bitmap updates.

const [width, height] = [400, 300];
let shadow: RunningFreerdpShadow;
beforeAll(async () => {
  shadow = await startFreerdpShadow({
    user: 'dev',
    domain: 'POSTERN',
    password: 'nla-pass1',
    width,
    height,
  });
  await shadow.xvnc.exec('xsetroot', ['-solid', '#ff8000']);
});
afterAll(() => shadow?.stop());

async function dial(): Promise<Socket> {
  const transport = connect({ host: shadow.host, port: shadow.port });
  await new Promise((resolve, reject) => transport.once('connect', resolve).once('error', reject));
  return transport;
}

async function open(user: string, password: string) {
  const transport = await dial();
  return RdpClient.connect({ transport, login: { user, password }, width, height });
}

/** Pixels whose colour differs (the session is 32 bpp, planar: nothing may be lost). */
function differingPixels(a: Uint8Array, b: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) count++;
  }
  return count;
}

describe('the RDP client with NLA against freerdp-shadow-cli', () => {
  it('signs in with CredSSP and NTLMv2 and shows the shadowed screen exactly', async () => {
    const image = everyKindOfTile(300, 200);
    const file = path.join(shadow.xvnc.dir, 'tiles.xwd');
    await writeFile(file, rgbaToXwd(300, 200, image));
    shadow.xvnc.run('xwud', ['-in', file, '-geometry', '+20+30']);
    const client = await open('POSTERN\\dev', shadow.password);
    try {
      expect([client.framebuffer.width, client.framebuffer.height]).toEqual([width, height]);
      // The X server's own screen, as xwd dumps it, is what the session must show: the orange
      // root window and the image of noise, runs and stripes.
      let last = -1;
      await eventually(
        async () => {
          const screen = xwdToRgba(await shadow.xvnc.exec('xwd', ['-root', '-silent'])).rgba;
          last = differingPixels(client.framebuffer.pixels(), screen);
          const shown = Buffer.from(screen).includes(Buffer.from(image.subarray(0, 1200)));
          return last === 0 && shown && screen[0] === 255 && screen[1] === 128;
        },
        `the decoded screen to match xwd (${last} pixels differ; the server said: ${shadow
          .output()
          .slice(-1000)})`,
        15_000,
      );
    } finally {
      client.close();
    }
  });

  it('ends a wrong password with the reason, before the browser hears anything', async () => {
    const browser = new PassThrough();
    const toBrowser: Buffer[] = [];
    browser.on('data', (chunk: Buffer) => toBrowser.push(chunk));
    let ready = false;
    await expect(
      startRdpRelay({
        browser,
        desktop: await dial(),
        login: { user: 'POSTERN\\dev', password: 'wrong-pass' },
        width,
        height,
        desktopName: 'nla',
        clipboard: false,
        onDesktopReady: () => (ready = true),
      }),
    ).rejects.toThrow(/^the desktop refused the login \(NLA/);
    expect(ready).toBe(false);
    expect(toBrowser).toEqual([]);
  });

  it('without a password asks for TLS only, which this server refuses: it requires NLA', async () => {
    await expect(open('POSTERN\\dev', '')).rejects.toThrow(
      'the server refused the connection (it requires NLA, which needs a password for the login)',
    );
  });
});
