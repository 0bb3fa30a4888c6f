import type { Socket } from 'node:net';
import {
  fakeDesktop,
  type FakeDesktopOptions,
  type FakeDesktopPeer,
} from './fake-desktop.testkit.js';
import { TestRfbClient } from './rfb-client.testkit.js';
import { socketPair } from './rfb.testkit.js';
import { startVncRelay, type VncRelayOptions } from './vnc-relay.js';

export interface ClipboardEvent {
  direction: 'to-desktop' | 'from-desktop';
  bytes: number;
  allowed: boolean;
}

/** Everything a relay test handles: the fake desktop, the relay and a noVNC-like client. */
export interface RelayedSession {
  peer: FakeDesktopPeer;
  session: Awaited<ReturnType<typeof startVncRelay>>;
  client: TestRfbClient;
  clipboard: ClipboardEvent[];
  /** The relay's end of the browser connection. */
  browserEnd: Socket;
  /** The relay's end of the desktop connection. */
  desktopEnd: Socket;
}

/**
 * A relay between a fake desktop and a test client over loopback TCP, past both handshakes.
 * `relay` adds to the relay's options (clipboard allowed both ways unless it says otherwise).
 */
export async function relayedSession(
  desktop: FakeDesktopOptions = {},
  relay: Partial<VncRelayOptions> = {},
  encodings?: number[],
): Promise<RelayedSession> {
  const fake = await fakeDesktop(desktop);
  const browser = await socketPair();
  const clipboard: ClipboardEvent[] = [];
  const started = startVncRelay({
    browser: browser.server,
    desktop: fake.desktop,
    password: desktop.password,
    clipboard: { toDesktop: true, fromDesktop: true },
    onClipboard: (direction, bytes, allowed) => clipboard.push({ direction, bytes, allowed }),
    ...relay,
  });
  const [session, client, peer] = await Promise.all([
    started,
    TestRfbClient.connect(browser.client, encodings),
    fake.ready,
  ]);
  return { peer, session, client, clipboard, browserEnd: browser.server, desktopEnd: fake.desktop };
}
