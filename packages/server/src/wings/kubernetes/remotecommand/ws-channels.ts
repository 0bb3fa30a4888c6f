import { Readable, Writable } from 'node:stream';
import type { WebSocket } from 'ws';

/** What one WebSocket message may carry at most: kubectl sends 32 KiB plus its channel byte. */
export const maxMessageBytes = 1024 * 1024;
/** Payloads we send are cut to this, so channels interleave on the one socket. */
const maxPayloadBytes = 32 * 1024;

/** A message of the channel protocol: the channel byte, then the payload. */
export function channelMessage(channel: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([channel]), payload]);
}

/**
 * What the socket may hold unsent before a channel's writer waits for it: enough to keep the
 * connection busy while the writer's next chunk comes, small enough to bound memory.
 */
const sendBufferLimit = 512 * 1024;

/**
 * What a channel's reader holds before the socket is paused: every pause costs the peer a round
 * trip before it sends again, so a bulk output (cat of a log) flows in long runs.
 */
const readerBufferBytes = 512 * 1024;

/**
 * One outgoing channel as a Writable. Each chunk goes out as messages at once; the write
 * completes at once while the socket holds little unsent, and once the socket took it when it
 * holds more, so a slow peer holds the writer back (the WebSocket has no window of its own)
 * without a round trip per message on a fast one.
 */
export class ChannelWriter extends Writable {
  constructor(
    private readonly socket: WebSocket,
    private readonly channel: number,
    private readonly onFinal: () => void = () => undefined,
  ) {
    super({ highWaterMark: 64 * 1024 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    // A closed socket drops the write: the session's `closed` says the peer is gone.
    if (this.socket.readyState !== this.socket.OPEN) return callback();
    let waiting = false;
    for (let offset = 0; offset < chunk.length; offset += maxPayloadBytes) {
      const end = Math.min(chunk.length, offset + maxPayloadBytes);
      const last = end === chunk.length;
      const message = channelMessage(this.channel, chunk.subarray(offset, end));
      this.socket.send(message, { binary: true }, last ? () => waiting && callback() : undefined);
    }
    if (this.socket.bufferedAmount <= sendBufferLimit) callback();
    else waiting = true;
  }

  override _final(callback: () => void): void {
    this.onFinal();
    callback();
  }
}

/**
 * The incoming channels: one Readable each. When a reader falls behind the socket is paused
 * (every channel shares it), and resumed once all readers caught up.
 */
export class ChannelReaders {
  readonly #readers = new Map<number, Readable>();
  readonly #behind = new Set<number>();

  constructor(
    private readonly socket: WebSocket,
    channels: number[],
  ) {
    for (const channel of channels) {
      const reader = new Readable({
        highWaterMark: readerBufferBytes,
        read: () => this.#caughtUp(channel),
      });
      this.#readers.set(channel, reader);
    }
  }

  get(channel: number): Readable | undefined {
    return this.#readers.get(channel);
  }

  /** A message's payload for `channel`; false when nobody reads that channel. */
  deliver(channel: number, payload: Buffer): boolean {
    const reader = this.#readers.get(channel);
    if (!reader || reader.readableEnded || reader.destroyed) return false;
    if (payload.length > 0 && !reader.push(payload)) {
      this.#behind.add(channel);
      this.socket.pause();
    }
    return true;
  }

  /** The channel carries no more data (v5 close, or the socket is gone). */
  end(channel: number): void {
    const reader = this.#readers.get(channel);
    if (reader && !reader.readableEnded && !reader.destroyed) reader.push(null);
    this.#caughtUp(channel);
  }

  endAll(): void {
    for (const channel of this.#readers.keys()) this.end(channel);
  }

  #caughtUp(channel: number): void {
    if (this.#behind.delete(channel) && this.#behind.size === 0) this.socket.resume();
  }
}
