import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startXrdp, type RunningXrdp } from '../../../testing/xrdp.testkit.js';
import { until } from '../rfb/rfb.testkit.js';
import { RdpClient } from './rdp-client.js';

// Postern's RDP client against a real xrdp (in front of a real Xvnc): TLS, the MCS connection,
// sign-in with the Client Info PDU, capabilities, and the screen decoded from bitmap updates.

let xrdp: RunningXrdp;
beforeAll(async () => {
  xrdp = await startXrdp({ password: 'rdp-pass1', width: 320, height: 200 });
  await xrdp.xvnc.exec('xsetroot', ['-solid', '#ff8000']);
});
afterAll(() => xrdp?.stop());

async function open(password = xrdp.password) {
  const transport = connect({ host: xrdp.host, port: xrdp.port });
  await new Promise((resolve, reject) => transport.once('connect', resolve).once('error', reject));
  return RdpClient.connect({
    transport,
    login: { user: 'dev', password },
    width: 320,
    height: 200,
  });
}

const pixelAt = (client: RdpClient, x: number, y: number) => [
  ...client.framebuffer
    .pixels()
    .subarray((y * client.framebuffer.width + x) * 4, (y * client.framebuffer.width + x) * 4 + 3),
];

describe('the RDP client with a real xrdp', () => {
  it('signs in over TLS and decodes the screen from bitmap updates', async () => {
    const client = await open();
    try {
      await until(
        () => pixelAt(client, 160, 100).join() === '255,128,0',
        `the orange screen (xrdp said: ${xrdp.output().slice(-500)})`,
        15_000,
      );
      expect(client.framebuffer.width).toBe(320);
    } finally {
      client.close();
    }
  });
});
