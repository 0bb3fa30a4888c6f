import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startXrdp } from '../../../testing/xrdp.testkit.js';
import { rgbaToXwd, xwdToRgba } from '../../../testing/xwd.testkit.js';
import { eventually } from '../rfb/rfb.testkit.js';
import { everyKindOfTile } from '../rfb/xvnc-relay.testkit.js';
import { RdpClient } from './rdp-client.js';

// Every bitmap form a real xrdp sends, decoded to exactly the X server's screen as xwd reads it:
// uncompressed, planar (32 bpp), interleaved RLE (24 and 16 bpp), on an image of noise, runs,
// stripes and an xterm's text.

const [width, height] = [640, 480];
const forms = [
  { name: 'uncompressed 32 bpp', compression: false, maxBpp: 32 },
  { name: 'planar 32 bpp', compression: true, maxBpp: 32 },
  { name: 'interleaved RLE 24 bpp', compression: true, maxBpp: 24 },
  { name: 'interleaved RLE 16 bpp', compression: true, maxBpp: 16 },
] as const;

/**
 * Pixels that differ. At 16 bpp the server keeps 5, 6 and 5 bits of red, green and blue, rounded
 * its own way: a channel may then be one step (8) off, never more, or the decoding is wrong.
 */
function differingPixels(a: Uint8Array, b: Uint8Array, bpp: number): number {
  const tolerance = bpp > 16 ? 0 : 8;
  let count = 0;
  for (let i = 0; i < a.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      if (Math.abs(a[i + c]! - b[i + c]!) > tolerance) {
        count++;
        break;
      }
    }
  }
  return count;
}

describe('bitmaps from a real xrdp', () => {
  for (const form of forms) {
    it(`decodes ${form.name} to the X server's screen`, async () => {
      const xrdp = await startXrdp({ password: 'codec-pass', width, height, ...form });
      const transport = connect({ host: xrdp.host, port: xrdp.port });
      const connected = new Promise((resolve) => transport.once('connect', resolve));
      try {
        const image = everyKindOfTile(300, 200);
        const file = path.join(xrdp.xvnc.dir, 'tiles.xwd');
        await writeFile(file, rgbaToXwd(300, 200, image));
        await connected;
        const client = await RdpClient.connect({
          transport,
          login: { user: 'dev', password: xrdp.password },
          width,
          height,
        });
        xrdp.xvnc.run('xwud', ['-in', file, '-geometry', '+20+30']);
        xrdp.xvnc.run('xterm', [
          '-geometry',
          '40x10+340+40',
          '-e',
          'sh',
          '-c',
          'ls -la /; sleep 60',
        ]);
        let last = -1;
        await eventually(async () => {
          const screen = xwdToRgba(await xrdp.xvnc.exec('xwd', ['-root', '-silent'])).rgba;
          // The pointer may be drawn into one screen and not the other: allow its size.
          last = differingPixels(client.framebuffer.pixels(), screen, form.maxBpp);
          return (
            last <= 32 * 32 && Buffer.from(screen).includes(Buffer.from(image.subarray(0, 1200)))
          );
        }, `the decoded screen to match xwd (${last} pixels differ)`);
        expect(last).toBeLessThanOrEqual(32 * 32);
        client.close();
      } finally {
        transport.destroy();
        await xrdp.stop();
      }
    });
  }
});
