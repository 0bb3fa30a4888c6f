import { SpdyProtocolError } from './frames.js';
import type { SpdyStream } from './spdy-stream.js';

/**
 * A connection's bookkeeping of ids (SPDY/3 sections 2.3.2 and 2.6.5): the client numbers its
 * streams and pings odd, the server even; a peer's stream ids only ever grow. Also the streams
 * we opened that wait for SYN_REPLY, and the pings that wait for their echo.
 */
export class StreamRegistry {
  readonly streams = new Map<number, SpdyStream>();
  /** The highest stream id the peer opened: what GOAWAY names as the last one seen. */
  lastPeerStreamId = 0;
  readonly #replies = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  readonly #pings = new Map<number, () => void>();
  readonly #ourParity: number;
  #nextStreamId: number;
  #nextPingId: number;

  constructor(role: 'client' | 'server') {
    this.#ourParity = role === 'client' ? 1 : 0;
    this.#nextStreamId = this.#nextPingId = role === 'client' ? 1 : 2;
  }

  nextStreamId(): number {
    const id = this.#nextStreamId;
    this.#nextStreamId += 2;
    return id;
  }

  /** Checks a SYN_STREAM's id: the peer's parity, and above every id it used before. */
  acceptPeerStreamId(id: number): void {
    if (id % 2 === this.#ourParity || id <= this.lastPeerStreamId) {
      throw new SpdyProtocolError(`the peer opened stream ${id} out of order`);
    }
    this.lastPeerStreamId = id;
  }

  /** Resolves with `stream` when its SYN_REPLY comes, rejects when it is refused or lost. */
  awaitReply(stream: SpdyStream): Promise<SpdyStream> {
    return new Promise((resolve, reject) => {
      this.#replies.set(stream.id, { resolve: () => resolve(stream), reject });
    });
  }

  replied(id: number): void {
    this.#replies.get(id)?.resolve();
    this.#replies.delete(id);
  }

  refuse(id: number, error: Error): void {
    this.#replies.get(id)?.reject(error);
    this.#replies.delete(id);
  }

  /** After GOAWAY: the streams above the peer's last good id were never seen by it. */
  refuseAbove(lastGoodStreamId: number, error: Error): void {
    for (const id of [...this.#replies.keys()]) if (id > lastGoodStreamId) this.refuse(id, error);
  }

  refuseAll(error: Error): void {
    for (const id of [...this.#replies.keys()]) this.refuse(id, error);
  }

  nextPingId(): number {
    const id = this.#nextPingId;
    // The ids may wrap (2.6.5), keeping their parity.
    this.#nextPingId = id + 2 > 0x7fffffff ? 2 - this.#ourParity : id + 2;
    return id;
  }

  awaitPong(id: number): Promise<void> {
    return new Promise((resolve) => this.#pings.set(id, resolve));
  }

  /** Whether a PING is the echo of one of ours (else it is the peer's, to echo back). */
  isOurPing(id: number): boolean {
    return id % 2 === this.#ourParity;
  }

  pong(id: number): void {
    this.#pings.get(id)?.();
    this.#pings.delete(id);
  }
}
