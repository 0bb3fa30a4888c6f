import type { Duplex } from 'node:stream';
import type { ByteInput } from '../rfb/byte-input.js';
import { RdpProtocolError } from './rdp-wire.js';

/**
 * The Connection Confirm, read straight off the stream: TLS takes the stream over next, so
 * nothing may stay subscribed to it (the server sends nothing else before TLS starts).
 */
export function readFirstTpkt(stream: Duplex): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let held = Buffer.alloc(0);
    const done = (error?: Error, packet?: Buffer) => {
      stream.off('data', onData).off('error', onError).off('close', onClose);
      if (error) reject(error);
      else resolve(packet!);
    };
    const onData = (chunk: Buffer) => {
      held = Buffer.concat([held, chunk]);
      if (held.length < 4) return;
      const length = held.readUInt16BE(2);
      if (held[0] !== 3 || length < 7)
        return done(new RdpProtocolError('the server does not speak RDP'));
      if (held.length < length) return;
      stream.pause();
      if (held.length > length) stream.unshift(held.subarray(length));
      done(undefined, held.subarray(4, length));
    };
    const onError = (error: Error) => done(error);
    const onClose = () => done(new RdpProtocolError('the RDP server closed the connection'));
    stream.on('data', onData).once('error', onError).once('close', onClose);
  });
}

/**
 * The next slow-path packet's X.224 payload. Fast-path packets met on the way go to
 * `onFastPath` (their first byte, and what follows their length), or are read past without it.
 */
export async function readTpkt(
  input: ByteInput,
  onFastPath?: (header: number, body: Buffer) => void,
): Promise<Buffer> {
  for (;;) {
    const head = await input.read(2);
    if (head[0] === 3) {
      const rest = await input.read(2);
      const length = rest.readUInt16BE(0);
      if (length < 7) throw new RdpProtocolError(`a TPKT of ${length} bytes`);
      return Buffer.from(await input.read(length - 4));
    }
    // Fast-path: the length is one or two bytes, the second byte's top bit saying which.
    let length = head[1]!;
    if (length & 0x80) length = ((length & 0x7f) << 8) | (await input.read(1))[0]!;
    const bodyLength = length - (head[1]! & 0x80 ? 3 : 2);
    if (bodyLength < 0) throw new RdpProtocolError(`a fast-path PDU of ${length} bytes`);
    if (onFastPath) onFastPath(head[0]!, Buffer.from(await input.read(bodyLength)));
    else await input.skip(bodyLength);
  }
}
