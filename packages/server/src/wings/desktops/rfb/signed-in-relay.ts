import type { Duplex } from 'node:stream';
import { ByteInput } from './byte-input.js';
import { ByteOutput } from './byte-output.js';
import { handshakeAsClient } from './handshake-as-client.js';
import { handshakeAsServer } from './handshake-as-server.js';

/** The handshake with either side must be over within this long. */
const handshakeTimeoutMs = 20_000;

/**
 * What an agent does for a desktop it serves: signs in to the VNC server with the password that
 * stays on the agent's host, then offers the proxy the same desktop with security None, and from
 * there passes bytes both ways untouched (the proxy parses RFB; the agent has no need to). The
 * proxy reaches the agent only over its authenticated tunnel, so None on that leg gives nothing
 * away. Resolves when either side is gone.
 */
export async function relaySignedIn(
  proxy: Duplex,
  desktop: Duplex,
  password: string | undefined,
): Promise<void> {
  const desktopIn = new ByteInput(desktop, 'the desktop');
  const desktopOut = new ByteOutput(desktop, 'the desktop');
  const proxyIn = new ByteInput(proxy, 'the proxy');
  const proxyOut = new ByteOutput(proxy, 'the proxy');
  const timer = setTimeout(() => {
    desktop.destroy();
    proxy.destroy();
  }, handshakeTimeoutMs);
  try {
    const signedIn = await handshakeAsClient(desktopIn, desktopOut, { password, shared: true });
    await handshakeAsServer(proxyIn, proxyOut, signedIn.serverInit);
  } catch (error) {
    desktop.destroy();
    proxy.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  await Promise.race([pump(desktopIn, proxyOut), pump(proxyIn, desktopOut)]).catch(() => undefined);
  desktop.destroy();
  proxy.destroy();
}

/** Copies what arrives (buffered bytes first) to the other side, waiting when it is full. */
async function pump(from: ByteInput, to: ByteOutput): Promise<never> {
  for (;;) {
    await to.write(await from.readUpTo(64 * 1024));
    await to.flush();
  }
}
