import type { Writable } from 'node:stream';
import { PeerGoneError } from './rfb-errors.js';

/**
 * What gathered pieces may add up to before they are written; a piece that does not fit goes
 * out with them. Each write is a WebSocket message, and each message costs the browser an event
 * (and noVNC a pass over its queue): TigerVNC sends tens of small ZRLE rectangles an update,
 * which went out as about 20 messages an update when only pieces under 1 KiB were gathered.
 */
const gatherLimit = 16 * 1024;

/**
 * Writes RFB to a stream and waits whenever the stream asks to (`write` returned false), so a
 * slow reader holds the writer back instead of filling memory: at most the stream's own high
 * water mark plus one piece is ever queued.
 *
 * The relay forwards a screen update as its parser reads it: a 4-byte header, 12-byte rectangle
 * headers, then the pixel data. Pieces are gathered up to 16 KiB and written at the next piece
 * that does not fit or at `flush` (the end of each message), so those headers do not each cost
 * a system call and a WebSocket message.
 */
export class ByteOutput {
  readonly #stream: Writable;
  readonly #peer: string;
  #gathered: Buffer[] = [];
  #gatheredLength = 0;

  /** `peer` names the other end in errors: "the desktop", "the browser". */
  constructor(stream: Writable, peer: string) {
    this.#stream = stream;
    this.#peer = peer;
  }

  /** Queues `bytes`; resolves once the stream can take more. Rejects when the peer is gone. */
  write(bytes: Buffer): Promise<void> | undefined {
    if (this.#gatheredLength + bytes.length <= gatherLimit) {
      this.#gathered.push(bytes);
      this.#gatheredLength += bytes.length;
      return undefined;
    }
    const pending = this.#takeGathered();
    return this.#send(pending ? Buffer.concat([pending, bytes]) : bytes);
  }

  /** Writes what was gathered; resolves once the stream can take more. */
  flush(): Promise<void> | undefined {
    const pending = this.#takeGathered();
    return pending ? this.#send(pending) : undefined;
  }

  #takeGathered(): Buffer | undefined {
    if (this.#gatheredLength === 0) return undefined;
    const pending =
      this.#gathered.length === 1 ? this.#gathered[0]! : Buffer.concat(this.#gathered);
    this.#gathered = [];
    this.#gatheredLength = 0;
    return pending;
  }

  #send(bytes: Buffer): Promise<void> | undefined {
    const stream = this.#stream;
    if (stream.destroyed || stream.writableEnded) {
      return Promise.reject(new PeerGoneError(`${this.#peer} closed the connection`));
    }
    if (stream.write(bytes)) return undefined;
    return new Promise((resolve) => {
      // Closing counts as drained: the next write (or the reader of that side) reports why.
      const done = () => {
        stream.off('drain', done);
        stream.off('close', done);
        resolve();
      };
      stream.on('drain', done);
      stream.on('close', done);
    });
  }
}
