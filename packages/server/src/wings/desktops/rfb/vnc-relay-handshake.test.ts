import { describe, expect, it } from 'vitest';
import { encodeSetPixelFormat } from './client-messages.js';
import { fakeDesktop, type FakeDesktopOptions } from './fake-desktop.testkit.js';
import { proxyPixelFormat } from './pixel-format.js';
import { securityType, type RfbVersion } from './protocol.js';
import { relayedSession } from './relay.testkit.js';
import { socketPair } from './rfb.testkit.js';
import { startVncRelay } from './vnc-relay.js';

const { none, vncAuthentication } = securityType;

describe('the VNC relay: handshakes', () => {
  it.each<RfbVersion>(['3.8', '3.7', '3.3'])(
    'signs in to a %s desktop with its password and lets the browser in with None',
    async (version) => {
      const { client, peer, session } = await relayedSession({
        version,
        security: [vncAuthentication],
        password: 'secret12',
      });
      expect(client.handshake.version).toBe('3.8');
      expect(client.handshake.security).toBe(none);
      expect(client.handshake.serverInit).toEqual({
        width: 64,
        height: 48,
        pixelFormat: proxyPixelFormat,
        name: 'fake desktop',
      });
      // The proxy's own format first; the browser's SetPixelFormat is kept, its encodings cut.
      expect((await peer.next()).wire).toEqual(encodeSetPixelFormat(proxyPixelFormat));
      expect(await peer.next()).toMatchObject({
        type: 'set-encodings',
        encodings: [1, 7, 16, 0, -26, -223, -224, -308, -312, -313, -239],
      });
      expect(await peer.next()).toMatchObject({ type: 'update-request', incremental: false });
      expect(client.bytes().includes('secret')).toBe(false);
      session.close('test over');
    },
  );

  it('tells the browser the name it is given instead of the desktop’s', async () => {
    const { client, session } = await relayedSession({}, { desktopName: 'build-box' });
    expect(client.handshake.serverInit.name).toBe('build-box');
    session.close('test over');
  });

  /** Starts a relay that must fail; returns its message and what the browser received. */
  async function refusal(desktop: FakeDesktopOptions, password?: string) {
    const fake = await fakeDesktop(desktop);
    const browser = await socketPair();
    const received: Buffer[] = [];
    browser.client.on('data', (chunk: Buffer) => received.push(chunk));
    const error = await startVncRelay({
      browser: browser.server,
      desktop: fake.desktop,
      password,
      clipboard: { toDesktop: true, fromDesktop: true },
    }).then(
      () => undefined,
      (failure: Error) => failure,
    );
    await new Promise((resolve) => setImmediate(resolve));
    // Not destroyed, and not read from: the caller can still tell the browser what happened.
    const browserIntact = !browser.server.destroyed && browser.server.listenerCount('data') === 0;
    browser.client.destroy();
    fake.server.destroy();
    return { message: error?.message, received: Buffer.concat(received), browserIntact };
  }

  it.each<[string, FakeDesktopOptions, string | undefined, string]>([
    [
      'a wrong password (3.8, with a reason)',
      { security: [vncAuthentication], password: 'right' },
      'wrong',
      'the desktop refused its password (Authentication failure)',
    ],
    [
      'a wrong password (3.7)',
      { version: '3.7', security: [vncAuthentication], password: 'right' },
      'wrong',
      'the desktop refused its password',
    ],
    [
      'no password for a desktop that asks one',
      { security: [vncAuthentication] },
      undefined,
      'the desktop asks for a VNC password and none is set for it',
    ],
    [
      'only security types the proxy lacks',
      { security: [19, 18] },
      'pw',
      'the desktop offers no security type the proxy supports (it offers VeNCrypt (19), TLS (18); the proxy speaks None and VNC Authentication)',
    ],
  ])('rejects %s with a message for people', async (_name, desktop, password, message) => {
    const result = await refusal(desktop, password);
    expect(result.message).toBe(message);
    expect(result.received.length).toBe(0);
    expect(result.browserIntact).toBe(true);
  });

  it('rejects a desktop that does not speak RFB, or turns the proxy away', async () => {
    for (const [greeting, message] of [
      ['SSH-2.0-OpenSSH_9.2p1\r\n', 'the desktop does not speak RFB (VNC): it sent "SSH-2.0-Open"'],
      [
        'RFB 003.008\n\0\0\0\0\x14too many connections',
        'the desktop refused the connection: too many connections',
      ],
    ]) {
      const desktop = await socketPair();
      const browser = await socketPair();
      desktop.server.write(greeting!);
      desktop.server.on('data', () => undefined);
      await expect(
        startVncRelay({
          browser: browser.server,
          desktop: desktop.client,
          clipboard: { toDesktop: true, fromDesktop: true },
        }),
      ).rejects.toThrow(message!);
      desktop.server.destroy();
      browser.client.destroy();
    }
  });

  it('rejects when the desktop hangs up during the handshake', async () => {
    const desktop = await socketPair();
    const browser = await socketPair();
    desktop.server.end('RFB 003.008\n');
    await expect(
      startVncRelay({
        browser: browser.server,
        desktop: desktop.client,
        clipboard: { toDesktop: true, fromDesktop: true },
      }),
    ).rejects.toThrow('the desktop closed the connection during the VNC handshake');
    browser.client.destroy();
  });
});
