import { StreamEndedError, StreamReader } from '../stream-reader.js';
import { maxHandshakeBytes, MysqlWireError, type Packet } from './my-wire.js';

/**
 * Reads whole MySQL packets while a connection starts (the greeting, the handshake response,
 * the authentication exchange); the relay that follows takes `release()`'s leftover bytes.
 */
export class MysqlPacketReader extends StreamReader {
  async packet(): Promise<Packet> {
    await this.#need(4);
    const header = this.peek(4);
    const length = header.readUIntLE(0, 3);
    if (length > maxHandshakeBytes) {
      throw new MysqlWireError(`a handshake packet of ${length} bytes is refused`);
    }
    await this.#need(4 + length);
    const whole = this.take(4 + length);
    return { seq: whole[3]!, payload: whole.subarray(4) };
  }

  async #need(bytes: number): Promise<void> {
    try {
      await this.need(bytes);
    } catch (error) {
      throw error instanceof StreamEndedError ? new MysqlWireError(error.message) : error;
    }
  }
}
