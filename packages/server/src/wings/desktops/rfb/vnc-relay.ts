import type { Duplex } from 'node:stream';
import { ByteInput } from './byte-input.js';
import { ByteOutput } from './byte-output.js';
import { encodeSetPixelFormat } from './client-messages.js';
import { Framebuffer, type FramebufferSource } from './framebuffer.js';
import { DesktopRefusedError, handshakeAsClient } from './handshake-as-client.js';
import { handshakeAsServer } from './handshake-as-server.js';
import { proxyPixelFormat } from './pixel-format.js';
import { RelaySession } from './relay-session.js';
import { PeerGoneError, RfbProtocolError } from './rfb-errors.js';

export interface VncRelayOptions {
  /** Bytes to and from noVNC (after the proxy's own in-band auth). */
  browser: Duplex;
  /** A TCP (or tunnelled) stream to the VNC server. */
  desktop: Duplex;
  /** VNC authentication; absent: the server must offer None. */
  password?: string;
  clipboard: { toDesktop: boolean; fromDesktop: boolean };
  onClipboard?(direction: 'to-desktop' | 'from-desktop', bytes: number, allowed: boolean): void;
  /**
   * Keep `framebuffer`'s pixels current (default true). A session nobody records passes false:
   * its updates are checked and forwarded without being decoded, and only the size is followed.
   */
  pixels?: boolean;
  /** What the browser is told (ServerInit name); default the server's. */
  desktopName?: string;
  /**
   * Called once the desktop signed the proxy in, before a byte goes to the browser: the connect
   * socket tells the browser its session is on (its in-band answer) only then.
   */
  onDesktopReady?(): void;
}

export interface VncSession {
  readonly framebuffer: FramebufferSource;
  /** Resolves when either side is gone: why, for the audit (`protocol error: …` on bad input). */
  readonly closed: Promise<{ reason: string; error: boolean }>;
  /** Ends both sides (a lock, the proxy stopping); the browser side sees its connection close. */
  close(reason: string): void;
}

/** Each handshake must be over within this long. */
const handshakeTimeoutMs = 20_000;

/**
 * Starts relaying a VNC session: signs in to the desktop first (so a refused password or an
 * unusable server is known before the browser hears anything), asks the desktop for the proxy's
 * pixel format, then answers the browser's handshake with security None and the desktop's
 * ServerInit in that format.
 *
 * Rejects with an Error whose message can be shown to the person connecting. When the desktop
 * failed, the desktop stream is destroyed and nothing has been written to the browser stream,
 * which is left to the caller (to report the error and close it); when the browser failed, both
 * are destroyed.
 */
export async function startVncRelay(options: VncRelayOptions): Promise<VncSession> {
  const { browser, desktop } = options;
  const desktopIn = new ByteInput(desktop, 'the desktop');
  const desktopOut = new ByteOutput(desktop, 'the desktop');

  let signedIn;
  let framebuffer: Framebuffer;
  try {
    signedIn = await withDeadline(desktop, 'the desktop', () =>
      // Shared: a second Postern session (or the desktop's own viewer) stays connected.
      handshakeAsClient(desktopIn, desktopOut, { password: options.password, shared: true }),
    );
    framebuffer = new Framebuffer(signedIn.serverInit.width, signedIn.serverInit.height);
    await desktopOut.write(encodeSetPixelFormat(proxyPixelFormat));
    await desktopOut.flush();
  } catch (error) {
    desktop.destroy();
    throw new Error(handshakeFailure(error, 'the desktop'));
  }

  options.onDesktopReady?.();
  // Only now does the proxy read from the browser, so a failed desktop leaves it untouched.
  const browserIn = new ByteInput(browser, 'the browser');
  const browserOut = new ByteOutput(browser, 'the browser');
  const init = signedIn.serverInit;
  try {
    await withDeadline(browser, 'the browser', () =>
      handshakeAsServer(browserIn, browserOut, {
        ...init,
        pixelFormat: proxyPixelFormat,
        name: options.desktopName ?? init.name,
      }),
    );
  } catch (error) {
    desktop.destroy();
    browser.destroy();
    throw new Error(handshakeFailure(error, 'the browser'));
  }

  const session = new RelaySession(
    { browser, desktop, browserIn, browserOut, desktopIn, desktopOut },
    framebuffer,
    { clipboard: options.clipboard, onClipboard: options.onClipboard, pixels: options.pixels },
  );
  return {
    framebuffer,
    closed: session.closed,
    close: (reason) => session.close(reason),
  };
}

/** Runs `step`; if it is not over in time, destroys `stream`, which makes `step` fail. */
async function withDeadline<T>(stream: Duplex, peer: string, step: () => Promise<T>): Promise<T> {
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    stream.destroy();
  }, handshakeTimeoutMs);
  try {
    return await step();
  } catch (error) {
    if (late) {
      throw new Error(
        `${peer} did not finish the VNC handshake within ${handshakeTimeoutMs / 1000} s`,
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A handshake's failure, worded for the person connecting. */
function handshakeFailure(error: unknown, peer: string): string {
  if (error instanceof DesktopRefusedError) return error.message;
  if (error instanceof PeerGoneError) return `${error.message} during the VNC handshake`;
  if (error instanceof RfbProtocolError) {
    return `${peer} broke the VNC handshake: it sent ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
