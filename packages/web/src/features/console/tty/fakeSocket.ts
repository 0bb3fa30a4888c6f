import {
  decodeEnvelope,
  encodeEnvelope,
  type TerminalEnvelope,
  type TerminalMessageType,
} from '@postern/contracts';
import type { SocketCloseEvent, SocketMessage, WebSocketLike } from './TtyClient';

/**
 * An in-memory WebSocket for tests: records what the client sends, and lets a test play the
 * server (open, answer the auth frame, send envelopes, close).
 */
export class FakeSocket implements WebSocketLike {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 3;

  binaryType = 'blob';
  readyState = FakeSocket.CONNECTING;
  /** Everything sent, in order: text frames as strings, binary frames as bytes. */
  readonly sent: (string | Uint8Array)[] = [];
  closedWith: { code?: number; reason?: string } | undefined;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: SocketMessage) => void) | null = null;
  onclose: ((event: SocketCloseEvent) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;

  constructor(readonly url: string) {}

  send(data: string | ArrayBuffer | Uint8Array): void {
    if (this.readyState !== FakeSocket.OPEN) throw new Error('send on a socket that is not open');
    this.sent.push(typeof data === 'string' ? data : new Uint8Array(data as ArrayBuffer));
  }

  close(code?: number, reason?: string): void {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.closedWith = { code, reason };
    this.readyState = FakeSocket.CLOSED;
    this.onclose?.({ code: code ?? 1005, reason: reason ?? '' });
  }

  // The server's side.

  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.({});
  }

  /** Opens and accepts the auth frame. */
  accept(): void {
    if (this.readyState !== FakeSocket.OPEN) this.open();
    this.receiveText(JSON.stringify({ type: 'create_session_response', status: 'ok' }));
  }

  receiveText(text: string): void {
    this.onmessage?.({ data: text });
  }

  /** One binary frame, delivered as an ArrayBuffer like a browser with binaryType arraybuffer. */
  receiveFrame(frame: Uint8Array): void {
    const buffer = frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.byteLength);
    this.onmessage?.({ data: buffer });
  }

  receive(type: TerminalMessageType, payload: string | Uint8Array = ''): void {
    this.receiveFrame(encodeEnvelope(type, payload));
  }

  serverClose(code = 1000, reason = ''): void {
    this.readyState = FakeSocket.CLOSED;
    this.onclose?.({ code, reason });
  }

  /** The binary frames sent, decoded. */
  envelopes(): TerminalEnvelope[] {
    return this.sent.filter((f): f is Uint8Array => typeof f !== 'string').map(decodeEnvelope);
  }

  /** The payloads of sent frames of one type. */
  payloads(type: TerminalMessageType): string[] {
    return this.envelopes()
      .filter((e) => e.type === type)
      .map((e) => e.payload);
  }
}

/** A factory that records the sockets it makes. */
export function fakeSockets() {
  const sockets: FakeSocket[] = [];
  return {
    sockets,
    create: (url: string) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    get last(): FakeSocket {
      const socket = sockets.at(-1);
      if (!socket) throw new Error('no socket was opened');
      return socket;
    },
  };
}
