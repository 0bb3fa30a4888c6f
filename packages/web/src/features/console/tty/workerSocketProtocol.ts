import type { SocketCloseEvent, SocketMessage, WebSocketLike } from './TtyClient';

/**
 * A WebSocket that lives in a worker, seen from the page as a `WebSocketLike` (socketWorker.ts
 * says why). Both halves talk over a message port; this file is DOM-free so a test can join
 * them with a MessageChannel.
 */
export type SocketCommand =
  | { op: 'open'; url: string }
  | { op: 'send'; data: string | Uint8Array }
  | { op: 'close'; code?: number; reason?: string };

export type SocketReport =
  | { ev: 'open' }
  | { ev: 'message'; data: string | ArrayBuffer }
  | { ev: 'error' }
  | { ev: 'close'; code: number; reason: string };

/** A worker, the worker's global scope or a MessagePort (a method-typed, bivariant handler). */
export interface PortLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: { bivariance(event: { data: unknown }): void }['bivariance'] | null;
}

/** The worker's half: opens the socket it is told to and reports everything it does. */
export function handleWorkerSocketCommands(
  port: PortLike,
  openSocket: (url: string) => WebSocketLike,
): void {
  let socket: WebSocketLike | undefined;
  const report = (message: SocketReport, transfer: Transferable[] = []) =>
    port.postMessage(message, transfer);
  port.onmessage = ({ data }) => {
    const command = data as SocketCommand;
    if (command.op === 'open' && !socket) {
      socket = openSocket(command.url);
      socket.binaryType = 'arraybuffer';
      socket.onopen = () => report({ ev: 'open' });
      socket.onerror = () => report({ ev: 'error' });
      socket.onclose = ({ code, reason }) => report({ ev: 'close', code, reason });
      // Binary data is handed over, not copied.
      socket.onmessage = ({ data: message }) =>
        typeof message === 'string'
          ? report({ ev: 'message', data: message })
          : report({ ev: 'message', data: message as ArrayBuffer }, [message as ArrayBuffer]);
    } else if (command.op === 'send') {
      socket?.send(command.data);
    } else if (command.op === 'close') {
      socket?.close(command.code, command.reason);
    }
  };
}

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** The page's half: a socket whose events arrive from the worker, in order. */
export class WorkerSocket implements WebSocketLike {
  binaryType = 'arraybuffer';
  readyState = CONNECTING;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: SocketMessage) => void) | null = null;
  onclose: ((event: SocketCloseEvent) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;

  constructor(
    url: string,
    private readonly port: PortLike,
    /** Called once the socket is closed: the worker has nothing left to do. */
    private readonly release: () => void = () => undefined,
  ) {
    port.onmessage = ({ data }) => this.report(data as SocketReport);
    this.command({ op: 'open', url });
  }

  send(data: string | ArrayBuffer | Uint8Array): void {
    if (this.readyState !== OPEN) return;
    this.command({ op: 'send', data: data instanceof ArrayBuffer ? new Uint8Array(data) : data });
  }

  close(code?: number, reason?: string): void {
    if (this.readyState >= CLOSING) return;
    this.readyState = CLOSING;
    this.command({ op: 'close', code, reason });
  }

  /** The worker itself failed (it did not load, or it crashed): the socket is gone with it. */
  fail(reason: string): void {
    this.report({ ev: 'close', code: 1006, reason });
  }

  private report(message: SocketReport): void {
    if (this.readyState === CLOSED) return;
    switch (message.ev) {
      case 'open':
        this.readyState = OPEN;
        this.onopen?.({});
        return;
      case 'message':
        this.onmessage?.({ data: message.data });
        return;
      case 'error':
        this.onerror?.({});
        return;
      case 'close':
        this.readyState = CLOSED;
        this.port.onmessage = null;
        this.onclose?.({ code: message.code, reason: message.reason });
        this.release();
        return;
    }
  }

  private command(command: SocketCommand): void {
    this.port.postMessage(command);
  }
}
