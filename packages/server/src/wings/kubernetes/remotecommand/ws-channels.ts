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
 * Sends one message. True while the socket holds little unsent; otherwise false, and `whenSent`
 * is called once this message has left (or the socket failed): a slow peer holds the sender
 * back (the WebSocket has no window of its own) without a round trip per message on a fast one.
 */
function sendPaced(socket: WebSocket, message: Buffer, whenSent: () => void): boolean {
  let waiting = false;
  socket.send(message, { binary: true }, () => waiting && whenSent());
  if (socket.bufferedAmount <= sendBufferLimit) return true;
  waiting = true;
  return false;
}

/** One outgoing channel as a Writable: each chunk goes out as messages at once, paced. */
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
    if (this.socket.readyState !== this.socket.OPEN || chunk.length === 0) return callback();
    let offset = 0;
    for (; chunk.length - offset > maxPayloadBytes; offset += maxPayloadBytes) {
      const payload = chunk.subarray(offset, offset + maxPayloadBytes);
      this.socket.send(channelMessage(this.channel, payload), { binary: true });
    }
    const last = channelMessage(this.channel, chunk.subarray(offset));
    if (sendPaced(this.socket, last, callback)) callback();
  }

  override _final(callback: () => void): void {
    this.onFinal();
    callback();
  }
}

/**
 * Where whole channel messages (channel byte first) go when two WebSocket sessions are joined
 * as they are. `send` returns false when the sender should wait for `whenSent`.
 */
export interface ChannelMessageSink {
  send(message: Buffer, whenSent: () => void): boolean;
}

/** Whole messages sent on `socket`, paced as a ChannelWriter is. */
export function channelMessageSink(socket: WebSocket): ChannelMessageSink {
  return {
    send: (message, whenSent) =>
      socket.readyState !== socket.OPEN || sendPaced(socket, message, whenSent),
  };
}

/**
 * The incoming channels: one Readable each, or a sink that takes a channel's messages whole.
 * When a reader or sink falls behind the socket is paused (every channel shares it), and
 * resumed once all caught up.
 */
export class ChannelReaders {
  readonly #readers = new Map<number, Readable>();
  readonly #sinks = new Map<number, ChannelMessageSink>();
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

  /**
   * From now on the channels' messages go to `sink` as they came, channel byte and all; their
   * Readables only end, with the socket.
   */
  divert(channels: number[], sink: ChannelMessageSink): void {
    for (const channel of channels) this.#sinks.set(channel, sink);
  }

  /** A message (channel byte, payload); false when nobody reads its channel. */
  deliver(message: Buffer): boolean {
    const channel = message[0]!;
    const sink = this.#sinks.get(channel);
    if (sink) {
      if (message.length > 1 && !sink.send(message, () => this.#caughtUp(channel))) {
        this.#fellBehind(channel);
      }
      return true;
    }
    const reader = this.#readers.get(channel);
    if (!reader || reader.readableEnded || reader.destroyed) return false;
    if (message.length > 1 && !reader.push(message.subarray(1))) this.#fellBehind(channel);
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

  #fellBehind(channel: number): void {
    this.#behind.add(channel);
    this.socket.pause();
  }

  #caughtUp(channel: number): void {
    if (this.#behind.delete(channel) && this.#behind.size === 0) this.socket.resume();
  }
}
