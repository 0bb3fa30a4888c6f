import type { Duplex } from 'node:stream';
import type { VncSession } from '../rfb/vnc-relay.js';
import { KeyboardState, PointerState } from './keyboard.js';
import { RdpClient, type RdpLogin } from './rdp-client.js';
import { RdpProtocolError } from './rdp-wire.js';
import { serveRfb } from './rfb-server.js';

export interface RdpRelayOptions {
  /** Bytes to and from noVNC (after the proxy's own in-band auth). */
  browser: Duplex;
  /** A TCP (or tunnelled) stream to the RDP server. */
  desktop: Duplex;
  login: RdpLogin;
  /** The screen to ask for (the browser's space); RDP sessions keep it for their life. */
  width: number;
  height: number;
  desktopName: string;
  /** Whether copied text may pass; with false the desktop gets no clipboard channel at all. */
  clipboard: boolean;
  /** Each text that passed, for the audit (sizes only). */
  onClipboard?(direction: 'to-desktop' | 'from-desktop', bytes: number, allowed: boolean): void;
  /** Called once the desktop signed the proxy in, before a byte goes to the browser. */
  onDesktopReady?(): void;
}

/**
 * An RDP desktop in the browser: the proxy is the RDP client (rdp-client.ts) and serves the
 * decoded screen to noVNC as VNC (rfb-server.ts), so the browser, the recordings and the
 * session's rules are the same as for a VNC desktop. Signs in first, so a refused login or an
 * unreachable server is known before the browser hears anything.
 */
export async function startRdpRelay(options: RdpRelayOptions): Promise<VncSession> {
  let client: RdpClient;
  // Set once the browser's side is served: text the desktop copies before that is dropped.
  let toBrowser: ((text: string) => void) | undefined;
  try {
    client = await RdpClient.connect({
      transport: options.desktop,
      login: options.login,
      // Servers want a width that is a multiple of 4, and sizes a desktop can have.
      width: clamp(options.width) & ~3,
      height: clamp(options.height),
      ...(options.clipboard
        ? {
            onClipboardText: (text: string) => {
              options.onClipboard?.('from-desktop', Buffer.byteLength(text), true);
              toBrowser?.(text);
            },
          }
        : {}),
    });
  } catch (error) {
    options.desktop.destroy();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      error instanceof RdpProtocolError ? reason : `the RDP server failed: ${reason}`,
    );
  }
  options.onDesktopReady?.();
  const keyboard = new KeyboardState();
  const pointer = new PointerState();
  let server;
  try {
    server = await serveRfb({
      browser: options.browser,
      framebuffer: client.framebuffer,
      name: options.desktopName,
      onKey: (keysym, down) => {
        const events = keyboard.events(keysym, down);
        if (events.length > 0) client.send(events);
      },
      onPointer: (buttons, x, y) => client.send(pointer.events(buttons, x, y)),
      onCutText: (text) => {
        options.onClipboard?.('to-desktop', Buffer.byteLength(text, 'latin1'), options.clipboard);
        if (options.clipboard) client.setClipboardText(text);
      },
    });
    toBrowser = server.sendCutText;
  } catch (error) {
    client.close();
    options.browser.destroy();
    throw new Error(`the browser broke the VNC handshake: ${(error as Error).message}`);
  }
  let ending: string | undefined;
  const closed = Promise.race([
    server.closed.then((reason) => ({
      reason: ending ?? reason,
      error: reason.startsWith('protocol error'),
    })),
    client.closed.then((error) => ({
      reason: ending ?? (error ? `the desktop: ${error.message}` : 'the desktop ended the session'),
      error: error instanceof RdpProtocolError,
    })),
  ]).then((result) => {
    client.close();
    options.browser.destroy();
    return result;
  });
  return {
    framebuffer: client.framebuffer,
    closed,
    close: (reason) => {
      ending ??= reason;
      client.close();
      options.browser.destroy();
    },
  };
}

const clamp = (side: number) => Math.max(200, Math.min(4096, Math.round(side)));
