import type { Readable, Writable } from 'node:stream';
import type { ExecRequest } from './exec-request.js';
import type { RemoteCommandProtocol, TerminalSize } from './protocol.js';
import type { Status } from '../httpstream/status.js';
import type { ChannelMessageSink } from './ws-channels.js';

export type RemoteCommandTransport = 'websocket' | 'spdy';

/**
 * The server's side of one exec or attach, whatever the transport: what an API server (or the
 * proxy, facing kubectl) holds. The streams exist as the request asked for them.
 */
export interface ExecServerSession {
  readonly transport: RemoteCommandTransport;
  readonly protocol: RemoteCommandProtocol;
  readonly request: ExecRequest;
  readonly tty: boolean;
  /** What the client types; ends when it closes stdin (v5) or goes away. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /**
   * WebSocket only: sends whole stdout and stderr messages as another WebSocket session's
   * `divertOutput` hands them, paced as `stdout` is and ordered with it and the status.
   */
  readonly outputSink?: ChannelMessageSink;
  /** Called with each size the client sends (a tty only); the first comes right after start. */
  onResize(listener: (size: TerminalSize) => void): void;
  /**
   * Ends the session: stdout and stderr are ended and flushed, `status` goes on the error
   * channel (exitStatus(code) for a command's end), then the connection closes.
   */
  finish(status: Status): Promise<void>;
  /** Cuts the connection without a status. */
  abort(): void;
  /** Resolves when the connection is gone, after `finish` or because the client left. */
  readonly closed: Promise<void>;
}

/**
 * The client's side of one exec or attach (what the proxy holds towards a cluster). `status`
 * never rejects: a connection lost before the status arrives yields a Failure status saying so.
 */
export interface ExecClientSession {
  readonly transport: RemoteCommandTransport;
  readonly protocol: RemoteCommandProtocol;
  /** Ending it sends stdin's EOF (v5 over WebSocket, or a SPDY half-close; v4 WebSocket cannot). */
  readonly stdin?: Writable;
  readonly stdout?: Readable;
  readonly stderr?: Readable;
  /**
   * WebSocket only: stdout and stderr messages go to `sink` whole, as they came, and the
   * `stdout`/`stderr` streams only end. A relay to a WebSocket peer then neither takes the
   * messages apart nor copies them.
   */
  divertOutput?(sink: ChannelMessageSink): void;
  resize(width: number, height: number): void;
  readonly status: Promise<Status>;
  close(): void;
}
