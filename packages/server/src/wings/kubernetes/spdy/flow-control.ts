import { rstStatus, settingId, SpdyProtocolError, type Frame } from './frames.js';
import type { SpdyStream } from './spdy-stream.js';

/**
 * SPDY/3.1 flow control (section 2.6.8 of draft 3, plus 3.1's connection-wide window). Each
 * stream and the connection as a whole start with 64 KiB of credit each way; a receiver gives
 * credit back with WINDOW_UPDATE as its reader consumes.
 *
 * moby/spdystream, and so kubectl and every Kubernetes API server and kubelet, sends neither
 * SETTINGS nor WINDOW_UPDATE and ignores ours: it leans on TCP, because a stream nobody reads
 * blocks its reading loop. So the send side obeys the windows only once the peer has shown that
 * it keeps them (a SETTINGS with an initial window, or any WINDOW_UPDATE); until then writers
 * are held back by the transport's own backpressure. The receive side always gives credit back;
 * when a peer that keeps no windows outruns a reader, the connection stops reading the transport
 * until the reader catches up (what spdystream itself does). Nothing buffers without bound.
 */
export const defaultWindow = 64 * 1024;
const maxWindow = 0x7fffffff;
/** DATA frames we send carry at most this much, so streams interleave on a shared transport. */
export const maxDataFrameBytes = 16 * 1024;

export interface FlowControlOptions {
  streamWindow?: number;
  connectionWindow?: number;
  send: (frame: Frame) => void;
  /** Something changed whether the transport should be read (see `congested`). */
  readingChanged: () => void;
}

export class FlowControl {
  /** What each stream may have in flight towards us. */
  readonly streamWindow: number;
  readonly #connectionWindow: number;
  readonly #send: (frame: Frame) => void;
  readonly #readingChanged: () => void;
  #peerKeepsWindows = false;
  #peerStreamWindow = defaultWindow;
  #connectionSendWindow = defaultWindow;
  #connectionReceived = 0;
  #connectionConsumed = 0;
  #connectionAcknowledged = 0;
  #congested = new Set<SpdyStream>();
  #waiters = new Set<() => void>();

  constructor(options: FlowControlOptions) {
    this.streamWindow = Math.max(options.streamWindow ?? 256 * 1024, defaultWindow);
    this.#connectionWindow = Math.max(options.connectionWindow ?? 1024 * 1024, defaultWindow);
    this.#send = options.send;
    this.#readingChanged = options.readingChanged;
  }

  /** Our windows, announced first thing: the stream window in SETTINGS, the rest as credit. */
  openingFrames(): Frame[] {
    const frames: Frame[] = [
      {
        type: 'settings',
        clear: false,
        entries: [{ flags: 0, id: settingId.initialWindowSize, value: this.streamWindow }],
      },
    ];
    const extra = this.#connectionWindow - defaultWindow;
    if (extra > 0) frames.push({ type: 'window_update', streamId: 0, delta: extra });
    return frames;
  }

  /** A stream nobody reads fast enough, from a peer that ignores windows: stop reading. */
  get congested(): boolean {
    return this.#congested.size > 0;
  }

  opened(stream: SpdyStream): void {
    stream.sendWindow = this.#peerStreamWindow;
  }

  /** Sends `data` as DATA frames no larger than the windows allow, waiting for credit. */
  async sendData(
    stream: SpdyStream,
    data: Buffer,
    fin: boolean,
    live: () => boolean,
    send: (frame: Frame) => void,
  ): Promise<void> {
    if (data.length === 0 && !fin) return;
    let offset = 0;
    do {
      if (!live()) return;
      const left = data.length - offset;
      const room = this.#peerKeepsWindows
        ? Math.min(stream.sendWindow, this.#connectionSendWindow)
        : Number.POSITIVE_INFINITY;
      if (left > 0 && room <= 0) {
        await new Promise<void>((resolve) => this.#waiters.add(resolve));
        continue;
      }
      const size = Math.min(left, room, maxDataFrameBytes);
      offset += size;
      stream.sendWindow -= size;
      this.#connectionSendWindow -= size;
      const chunk = data.subarray(offset - size, offset);
      send({ type: 'data', streamId: stream.id, fin: fin && offset === data.length, data: chunk });
    } while (offset < data.length);
  }

  /** A DATA frame's payload for `stream`; false when the stream was reset for overrunning. */
  received(stream: SpdyStream, data: Buffer): boolean {
    this.#connectionReceived += data.length;
    if (this.#peerKeepsWindows) {
      const inFlight = this.#connectionReceived - this.#connectionAcknowledged;
      if (inFlight > this.#connectionWindow) {
        throw new SpdyProtocolError('the peer overran the connection window');
      }
      if (stream.received + data.length - stream.acknowledged > this.streamWindow) {
        this.discarded(data.length);
        stream.reset(rstStatus.flowControlError);
        return false;
      }
    }
    const keptUp = stream.receiveData(data);
    if (!keptUp && !this.#peerKeepsWindows) {
      this.#congested.add(stream);
      this.#readingChanged();
    }
    return true;
  }

  /** The stream's reader took bytes: give credit back in batches of half a window. */
  consumed(stream: SpdyStream): void {
    const consumed = stream.received - stream.readableLength;
    if (consumed > stream.consumedReported) {
      this.#connectionConsumed += consumed - stream.consumedReported;
      stream.consumedReported = consumed;
    }
    const owed = consumed - stream.acknowledged;
    // After FIN no credit is due (2.6.8); neither for a stream that is already gone.
    if (!stream.remoteFin && !stream.destroyed && creditDue(owed, this.streamWindow)) {
      stream.acknowledged += owed;
      this.#send({ type: 'window_update', streamId: stream.id, delta: owed });
    }
    this.#creditConnection();
    if (this.#congested.has(stream) && stream.readableLength < stream.readableHighWaterMark) {
      this.#congested.delete(stream);
      this.#readingChanged();
    }
  }

  /** Bytes dropped unread (a stream already over): they still free connection window. */
  discarded(bytes: number): void {
    this.#connectionConsumed += bytes;
    this.#creditConnection();
  }

  released(stream: SpdyStream): void {
    this.discarded(stream.received - stream.consumedReported);
    stream.consumedReported = stream.received;
    if (this.#congested.delete(stream)) this.#readingChanged();
    this.#wake();
  }

  peerInitialWindow(value: number, streams: Iterable<SpdyStream>): void {
    if (value > maxWindow) throw new SpdyProtocolError('an initial window above 2^31 - 1');
    const delta = value - this.#peerStreamWindow;
    this.#peerStreamWindow = value;
    for (const stream of streams) stream.sendWindow += delta;
    this.#peerKeepsWindows = true;
    this.#wake();
  }

  windowUpdate(streamId: number, delta: number, stream: SpdyStream | undefined): void {
    this.#peerKeepsWindows = true;
    if (streamId === 0) {
      this.#connectionSendWindow += delta;
      if (this.#connectionSendWindow > maxWindow) {
        throw new SpdyProtocolError('the connection window grew past 2^31 - 1');
      }
    } else if (stream) {
      stream.sendWindow += delta;
      if (stream.sendWindow > maxWindow) stream.reset(rstStatus.flowControlError);
    }
    this.#wake();
  }

  close(): void {
    this.#wake();
  }

  #creditConnection(): void {
    const owed = this.#connectionConsumed - this.#connectionAcknowledged;
    if (!creditDue(owed, this.#connectionWindow)) return;
    this.#connectionAcknowledged += owed;
    this.#send({ type: 'window_update', streamId: 0, delta: owed });
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }
}

function creditDue(owed: number, window: number): boolean {
  return owed > 0 && owed >= window / 2;
}
