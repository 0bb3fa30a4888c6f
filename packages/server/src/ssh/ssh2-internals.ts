import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';

/**
 * The few ssh2 1.17 internals Postern relies on, in one place. ssh2 has no API to send a
 * hand-built message, and we need two: a certificate userauth request (client, see
 * certificate-auth.ts) and a userauth banner telling a refused user why (server). ssh2 is pinned
 * and tests against a real sshd and our node service exercise both paths.
 */

const require = createRequire(import.meta.url);
const { sendPacket } = require('ssh2/lib/protocol/utils.js') as {
  sendPacket(protocol: unknown, packet: Buffer): boolean;
};

/** The parts of ssh2's (untyped) Protocol object we touch. */
export interface Ssh2Protocol {
  authPK(username: string, key: unknown, keyAlgo?: unknown, cbSign?: unknown): void;
  _kex: { sessionID: Buffer };
  _packetRW: {
    write: { allocStart: number; alloc(size: number): Buffer; finalize(packet: Buffer): Buffer };
  };
  _authsQueue: string[];
}

/** The protocol object behind an ssh2 Client, server-side connection or auth context. */
export function protocolOf(holder: object): Ssh2Protocol {
  const protocol = (holder as { _protocol?: Ssh2Protocol })._protocol;
  if (!protocol || typeof protocol._packetRW?.write?.alloc !== 'function') {
    throw new Error('ssh2 internals changed (is ssh2 still 1.17?): cannot send a raw message');
  }
  return protocol;
}

/** Frames, encrypts and sends one message payload exactly as ssh2's own methods do. */
export function sendRawPayload(protocol: Ssh2Protocol, payload: Buffer): void {
  const writer = protocol._packetRW.write;
  const packet = writer.alloc(payload.length);
  payload.copy(packet, writer.allocStart);
  sendPacket(protocol, writer.finalize(packet));
}

const { MAX_WINDOW, PACKET_SIZE } = require('ssh2/lib/Channel.js') as {
  MAX_WINDOW: number;
  PACKET_SIZE: number;
};

interface Ssh2ServerConnection {
  _chanMgr: { add(opened: unknown): number };
  _protocol: { openssh_authAgent(channel: number, window: number, packetSize: number): void };
}

/**
 * Opens an `auth-agent@openssh.com` channel to the client of a server-side connection: how a
 * server reaches the agent of a client that asked for agent forwarding (`ssh -A`). ssh2 has the
 * message (Protocol.openssh_authAgent) but no server-side call; this is its openChannel for it.
 */
export function openAgentChannel(connection: object): Promise<Duplex> {
  const conn = connection as Ssh2ServerConnection;
  if (typeof conn._chanMgr?.add !== 'function') {
    throw new Error('ssh2 internals changed (is ssh2 still 1.17?): cannot open an agent channel');
  }
  return new Promise((resolve, reject) => {
    const opened = (error: Error | undefined, stream: Duplex) =>
      error ? reject(error) : resolve(stream);
    opened.type = 'auth-agent@openssh.com';
    const id = conn._chanMgr.add(opened);
    if (id === -1) return reject(new Error('no free SSH channels'));
    conn._protocol.openssh_authAgent(id, MAX_WINDOW, PACKET_SIZE);
  });
}

/** What ssh2 keeps of the peer's side of a channel: its window and its maximum packet. */
interface Outgoing {
  window: number;
  packetSize: number;
}

/** Lowers one of ssh2's figures for what it may send on `channel` to at most `max`. */
function capOutgoing(channel: object, field: keyof Outgoing, max: number): void {
  const outgoing = (channel as { outgoing?: Partial<Outgoing> }).outgoing;
  const value = outgoing?.[field];
  if (!outgoing || typeof value !== 'number') {
    throw new Error(`ssh2 internals changed (is ssh2 still 1.17?): no outgoing ${field}`);
  }
  outgoing[field] = Math.min(value, max);
}

/**
 * Caps the size of the data packets ssh2 sends on `channel` (it uses the peer's maximum,
 * `outgoing.packetSize`). A smaller cap is always allowed by the protocol.
 */
export function capOutgoingPacketSize(channel: object, max: number): void {
  capOutgoing(channel, 'packetSize', max);
}

/** The largest data packet the peer of `channel` takes (its maximum packet size). */
export function outgoingPacketSize(channel: object): number | undefined {
  const size = (channel as { outgoing?: { packetSize?: unknown } }).outgoing?.packetSize;
  return typeof size === 'number' ? size : undefined;
}

/**
 * Lowers how much data ssh2 may have in flight on `channel` to at most `max`, below the window
 * the peer granted. ssh2 only takes from `outgoing.window` what it sends and adds what each
 * WINDOW_ADJUST grants, so lowered once at open our credit stays the peer's minus the same
 * amount: never above it, never below zero. Only safe with a peer that sends WINDOW_ADJUST
 * before `max` is used up (in-flight.ts).
 */
export function capOutgoingWindow(channel: object, max: number): void {
  capOutgoing(channel, 'window', max);
}

/** The software part of the peer's SSH identification ("OpenSSH_9.2p1"), once known. */
export function peerSoftware(client: object): string | undefined {
  const version = (client as { _remoteVer?: unknown })._remoteVer;
  return typeof version === 'string' ? version : undefined;
}

/** The parts of an ssh2 client channel that hold what we granted the peer to send. */
export interface IncomingSide {
  incoming: { window: number };
  outgoing: { id: number; state: string };
}

interface SessionOpener {
  session(localChannel: number, initialWindow: number, maxPacket: number): void;
}

/**
 * Makes the next session channel `client` opens offer the peer other figures than ssh2's fixed
 * ones: `window` bytes instead of 2 MiB, and data packets of at most `packetSize` instead of
 * 32 KiB. A smaller window: ssh2 still believes it offered 2 MiB, `takeOverIncomingWindow` with
 * the same `window` puts its count right once the channel is there. A smaller packet size needs
 * nothing more: ssh2 never checks what it receives against it.
 */
export function offerOnNextSession(
  client: object,
  offer: { window?: number; packetSize?: number },
): void {
  const protocol = (client as { _protocol?: Partial<SessionOpener> })._protocol;
  if (!protocol || typeof protocol.session !== 'function') {
    throw new Error('ssh2 internals changed (is ssh2 still 1.17?): cannot open with a window');
  }
  const open = protocol.session.bind(protocol);
  protocol.session = (localChannel, window, maxPacket) => {
    delete protocol.session; // back to the prototype's method for any later channel
    open(localChannel, offer.window ?? window, Math.min(offer.packetSize ?? maxPacket, maxPacket));
  };
}

/**
 * Takes over the WINDOW_ADJUST messages ssh2 would send for `channel`: ssh2 keeps the peer's
 * credit between 1 and 2 MiB (hard-coded), whatever the reader does with the data. From here on
 * ssh2's own top-ups are undone and `grant(bytes)` is the only way to give credit back.
 * `offered`: the window the channel was opened with, when `offerOnNextSession` set it.
 */
export function takeOverIncomingWindow(
  client: object,
  channel: object,
  onTopUpWanted: () => void,
  offered = MAX_WINDOW,
): { side: IncomingSide; grant(bytes: number): void } {
  const protocol = (client as { _protocol?: { channelWindowAdjust?: unknown } })._protocol;
  const side = channel as Partial<IncomingSide>;
  if (
    !protocol ||
    typeof protocol.channelWindowAdjust !== 'function' ||
    typeof side.incoming?.window !== 'number' ||
    typeof side.outgoing?.id !== 'number'
  ) {
    throw new Error('ssh2 internals changed (is ssh2 still 1.17?): cannot manage the window');
  }
  const send = (protocol.channelWindowAdjust as (id: number, bytes: number) => void).bind(protocol);
  const checked = side as IncomingSide;
  // ssh2 counts from the 2 MiB it meant to offer; what the peer may still send is less by the
  // difference (ssh2 cannot have topped up yet: its count stays above its 1 MiB threshold).
  checked.incoming.window = Math.max(0, checked.incoming.window - (MAX_WINDOW - offered));
  protocol.channelWindowAdjust = (id: number, bytes: number) => {
    if (id !== checked.outgoing.id) return send(id, bytes);
    // ssh2 added `bytes` to its count before calling us: take it back, then let the owner decide.
    checked.incoming.window -= bytes;
    onTopUpWanted();
  };
  return {
    side: checked,
    grant(bytes) {
      if (checked.outgoing.state !== 'open' || bytes <= 0) return;
      checked.incoming.window += bytes;
      send(checked.outgoing.id, bytes);
    },
  };
}
