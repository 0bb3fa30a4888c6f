import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { FlowControl } from './flow-control.js';
import { goAwayStatus, rstStatus, settingId, SpdyProtocolError } from './frames.js';
import {
  headersProblem,
  normalizedHeaders,
  type SpdyHeaders,
  type SpdyHeadersInit,
} from './header-compression.js';
import { Inbound, type InboundFrame } from './inbound.js';
import { Outbound } from './outbound.js';
import { SpdyStream, type StreamHost } from './spdy-stream.js';
import { StreamRegistry } from './stream-registry.js';

export interface SpdyConnectionOptions {
  /** The client opens odd-numbered streams, the server even-numbered ones (section 2.3.2). */
  role: 'client' | 'server';
  /** Bytes already read from the transport past the HTTP upgrade. */
  head?: Buffer;
  /** What each stream may have in flight towards us; at least 64 KiB (default 256 KiB). */
  streamWindow?: number;
  /** What the whole connection may have in flight towards us (default 1 MiB). */
  connectionWindow?: number;
  /** Frames larger than this end the connection (default 1 MiB). */
  maxFrameBytes?: number;
}

/**
 * A SPDY/3.1 connection over any Duplex: a socket after `101 Switching Protocols`, or a WebSocket
 * adapted to a stream (kubectl's port-forward tunnel). Streams the peer opens arrive as 'stream'
 * events (reply or reset them); `openStream` opens one. It never throws at the event loop: a
 * broken peer ends the connection, with the reason on 'close' and in `closed`.
 *
 * Events: 'stream' (SpdyStream), 'goaway' (lastGoodStreamId), 'close' (Error | undefined).
 */
export class SpdyConnection extends EventEmitter implements StreamHost {
  readonly role: 'client' | 'server';
  /** Resolves when the connection is over: undefined when it ended cleanly, else why. */
  readonly closed: Promise<Error | undefined>;

  readonly #transport: Duplex;
  readonly #inbound: Inbound;
  readonly #out: Outbound;
  readonly #flow: FlowControl;
  readonly #ids: StreamRegistry;
  readonly #streams: Map<number, SpdyStream>;
  #goAwayReceived = false;
  #ended = false;
  #resolveClosed!: (error: Error | undefined) => void;

  constructor(transport: Duplex, options: SpdyConnectionOptions) {
    super();
    this.role = options.role;
    this.#transport = transport;
    this.#ids = new StreamRegistry(options.role);
    this.#streams = this.#ids.streams;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#out = new Outbound(transport, (error) => this.destroy(error));
    this.#flow = new FlowControl({
      streamWindow: options.streamWindow,
      connectionWindow: options.connectionWindow,
      send: (frame) => this.#out.send(frame),
      readingChanged: () => this.#updateReading(),
    });
    this.#inbound = new Inbound(
      options.maxFrameBytes ?? 1024 * 1024,
      (frame) => this.#handle(frame),
      (error) => this.#protocolError(error),
      () => this.#updateReading(),
    );
    transport.on('data', (chunk: Buffer) => this.#inbound.push(chunk));
    const ended = () => this.#inbound.whenDrained(() => this.#finish(undefined));
    transport.on('end', ended);
    transport.on('close', ended);
    transport.on('error', (error: Error) => this.#finish(error));
    for (const frame of this.#flow.openingFrames()) this.#out.send(frame);
    if (options.head && options.head.length > 0) this.#inbound.push(options.head);
  }

  /** Opens a stream and resolves once the peer replied (what Kubernetes' clients wait for). */
  openStream(headers: SpdyHeadersInit, options: { fin?: boolean } = {}): Promise<SpdyStream> {
    if (this.#ended || this.#out.goAwaySent || this.#goAwayReceived) {
      return Promise.reject(new Error('the SPDY connection is closing'));
    }
    const problem = headersProblem(headers);
    if (problem) return Promise.reject(new Error(problem));
    const id = this.#ids.nextStreamId();
    const stream = this.#newStream(id, normalizedHeaders(headers), true, false);
    const opened = this.#ids.awaitReply(stream);
    const fin = options.fin ?? false;
    this.#out.sendWithHeaders(headers, (headerBlock) => ({
      type: 'syn_stream',
      streamId: id,
      associatedToStreamId: 0,
      priority: 0,
      fin,
      unidirectional: false,
      headerBlock,
    }));
    if (options.fin) stream.finishedBySynStream();
    return opened;
  }

  /** Round trip of a PING, in milliseconds. */
  ping(): Promise<number> {
    if (this.#ended) return Promise.reject(new Error('the SPDY connection is closed'));
    const id = this.#ids.nextPingId();
    const started = performance.now();
    this.#out.send({ type: 'ping', id });
    return this.#ids.awaitPong(id).then(() => performance.now() - started);
  }

  /**
   * Ends the connection: GOAWAY, then the transport once every frame queued before it is out.
   * Streams still open end with it; a caller that wants their data delivered ends them first.
   */
  async close(): Promise<void> {
    if (this.#ended) return;
    this.#out.goAway(this.#ids.lastPeerStreamId, goAwayStatus.ok);
    await this.#out.endTransport();
    await this.closed;
  }

  /** Ends at once, without waiting for queued frames. */
  destroy(error?: Error): void {
    this.#transport.destroy();
    this.#finish(error);
  }

  // StreamHost: what the streams call.

  async sendData(stream: SpdyStream, data: Buffer, fin: boolean): Promise<void> {
    await stream.whenReplied();
    const live = () => !this.#ended && this.#streams.get(stream.id) === stream;
    await this.#flow.sendData(stream, data, fin, live, (frame) => this.#out.send(frame));
    await this.#out.drained();
  }

  sendReply(stream: SpdyStream, headers: SpdyHeadersInit): void {
    if (this.#ended || this.#streams.get(stream.id) !== stream) return;
    this.#out.sendWithHeaders(headers, (headerBlock) => ({
      type: 'syn_reply',
      streamId: stream.id,
      fin: false,
      headerBlock,
    }));
  }

  sendReset(stream: SpdyStream, status: number): void {
    if (this.#streams.get(stream.id) === stream) {
      this.#out.send({ type: 'rst_stream', streamId: stream.id, status });
    }
  }

  consumed(stream: SpdyStream): void {
    this.#flow.consumed(stream);
  }

  released(stream: SpdyStream): void {
    if (this.#streams.get(stream.id) !== stream) return;
    this.#streams.delete(stream.id);
    this.#flow.released(stream);
    this.#ids.refuse(stream.id, resetError(stream.resetStatus ?? rstStatus.cancel));
  }

  // Receiving: frames come one at a time, in order, header blocks inflated (inbound.ts).

  #handle(frame: InboundFrame): void {
    switch (frame.type) {
      case 'data':
        return this.#onData(frame.streamId, frame.data, frame.fin);
      case 'syn_stream':
        return this.#onSynStream(frame);
      case 'syn_reply':
      case 'headers':
        return this.#onHeaders(frame.type, frame.streamId, frame.headers, frame.fin);
      case 'rst_stream':
        this.#ids.refuse(frame.streamId, resetError(frame.status));
        return this.#streams.get(frame.streamId)?.receiveReset(frame.status);
      case 'settings': {
        const window = frame.entries.find((entry) => entry.id === settingId.initialWindowSize);
        if (window) this.#flow.peerInitialWindow(window.value, this.#streams.values());
        return;
      }
      case 'window_update':
        return this.#flow.windowUpdate(
          frame.streamId,
          frame.delta,
          this.#streams.get(frame.streamId),
        );
      case 'ping':
        return this.#onPing(frame.id);
      case 'goaway':
        return this.#onGoAway(frame.lastGoodStreamId);
      case 'unknown':
        return; // Section 2.2.1: control frames of an unknown type are ignored.
    }
  }

  #onData(streamId: number, data: Buffer, fin: boolean): void {
    const stream = this.#streams.get(streamId);
    if (!stream || stream.remoteFin) {
      // A stream already over (a reset crossing data in flight): drop, but give the credit back.
      this.#flow.discarded(data.length);
      stream?.reset(rstStatus.streamAlreadyClosed);
      return;
    }
    if (data.length > 0 && !this.#flow.received(stream, data)) return;
    if (fin) stream.receiveFin();
  }

  #onSynStream(frame: Extract<InboundFrame, { type: 'syn_stream' }>): void {
    const id = frame.streamId;
    this.#ids.acceptPeerStreamId(id);
    if (this.#out.goAwaySent) return; // After GOAWAY, new streams are ignored (2.6.6).
    if (!frame.headers) {
      return this.#out.send({ type: 'rst_stream', streamId: id, status: rstStatus.protocolError });
    }
    if (frame.unidirectional || this.listenerCount('stream') === 0) {
      return this.#out.send({ type: 'rst_stream', streamId: id, status: rstStatus.refusedStream });
    }
    this.emit('stream', this.#newStream(id, frame.headers, false, frame.fin));
  }

  #onHeaders(type: string, id: number, headers: SpdyHeaders | undefined, fin: boolean): void {
    const stream = this.#streams.get(id);
    if (!headers) {
      this.#out.send({ type: 'rst_stream', streamId: id, status: rstStatus.protocolError });
      return stream?.receiveReset(rstStatus.protocolError);
    }
    if (!stream) return;
    if (type === 'syn_reply') {
      stream.replyHeaders = headers;
      this.#ids.replied(id);
    } else {
      stream.emit('headers', headers);
    }
    if (fin) stream.receiveFin();
  }

  #onPing(id: number): void {
    if (this.#ids.isOurPing(id)) this.#ids.pong(id);
    else this.#out.send({ type: 'ping', id });
  }

  #onGoAway(lastGoodStreamId: number): void {
    this.#goAwayReceived = true;
    this.#ids.refuseAbove(lastGoodStreamId, new Error('the peer went away (GOAWAY)'));
    this.emit('goaway', lastGoodStreamId);
  }

  // Sending and ending.

  #newStream(id: number, headers: SpdyHeaders, local: boolean, remoteFin: boolean): SpdyStream {
    const receiveWindow = this.#flow.streamWindow;
    const stream = new SpdyStream(this, { id, headers, local, remoteFin, receiveWindow });
    this.#flow.opened(stream);
    this.#streams.set(id, stream);
    return stream;
  }

  #updateReading(): void {
    if (this.#ended) return;
    const pause = this.#flow.congested || this.#inbound.backlogged;
    if (pause && !this.#transport.isPaused()) this.#transport.pause();
    if (!pause && this.#transport.isPaused()) this.#transport.resume();
  }

  #protocolError(error: unknown): void {
    if (this.#ended) return;
    const reason = error instanceof Error ? error : new Error(String(error));
    const status =
      reason instanceof SpdyProtocolError ? goAwayStatus.protocolError : goAwayStatus.internalError;
    this.#out.goAway(this.#ids.lastPeerStreamId, status);
    void this.#out.endTransport();
    this.#finish(reason);
  }

  #finish(error: Error | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const stream of [...this.#streams.values()]) {
      // A stream the peer finished keeps what it received for its reader; the others are cut.
      if (stream.remoteFin) stream.connectionEnded();
      else stream.receiveReset(rstStatus.cancel);
    }
    this.#ids.refuseAll(error ?? new Error('the SPDY connection closed'));
    this.#flow.close();
    this.#inbound.close();
    this.#out.close();
    // Whoever ended it, our side ends too (an upgraded socket may be half-open).
    void this.#out.endTransport();
    if (this.#transport.isPaused()) this.#transport.resume();
    this.#resolveClosed(error);
    this.emit('close', error);
  }
}

function resetError(status: number): Error {
  return new Error(`the peer reset the stream (RST_STREAM status ${status})`);
}
