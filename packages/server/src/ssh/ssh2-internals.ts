import { createRequire } from 'node:module';

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
