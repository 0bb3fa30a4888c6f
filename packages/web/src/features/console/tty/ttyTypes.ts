import {
  sessionEndReasons,
  type ActiveSessionJson,
  type FileTransferRequestEvent,
  type MfaChallenge,
} from '@postern/contracts';
import type { ResumeTimers } from './resume';

/**
 * The terminal socket's types (docs/protocol.md) that TtyClient and its callers share: the
 * socket it drives, the terminal size, its states, the events it emits and how a connection
 * ended.
 */

/** Makes a method-typed (bivariant) handler, so DOM and `ws` sockets both fit `WebSocketLike`. */
type Handler<E> = { bivariance(event: E): void }['bivariance'];

export interface SocketMessage {
  data: unknown;
}
export interface SocketCloseEvent {
  code: number;
  reason: string;
}

/** The part of the WebSocket API the client uses: the browser's and the `ws` package's both fit. */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: string | ArrayBuffer | Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: Handler<unknown> | null;
  onmessage: Handler<SocketMessage> | null;
  onclose: Handler<SocketCloseEvent> | null;
  onerror: Handler<unknown> | null;
}

export type WebSocketConstructorLike = new (url: string) => WebSocketLike;

export interface TtyClientOptions {
  /** The full socket URL (see terminalUrl.ts): params and traceparent, never the token. */
  url: string;
  /** The bearer token, sent in the first frame. */
  token: string;
  /** The WebSocket implementation: the global one by default; Node 20 passes `ws`'s. */
  WebSocket?: WebSocketConstructorLike;
  /** Or a factory, e.g. to give a Node socket a Cookie header. Wins over `WebSocket`. */
  createSocket?: (url: string) => WebSocketLike;
  /** Observers: keystrokes and resizes are never sent. */
  readOnly?: boolean;
  /** A moderator: read-only, but `t` ends the session. */
  moderator?: boolean;
  /** The size the URL's `params.term` announced, so an unchanged size is not sent again. */
  initialSize?: TerminalSize;
  /** Acknowledge at least every this many processed output bytes (default 64 KiB). */
  ackEvery?: number;
  /** The bearer when resuming (it may have been renewed since the start); `token` otherwise. */
  currentToken?: () => string | undefined;
  /** Time and timers of the resume's retries; tests pass their own. */
  timers?: ResumeTimers;
  /**
   * Gives the session up on the server while it is being resumed, as there is no socket to
   * close then (the console posts its key to `terminalLeave`, keepalive). Without it the
   * server ends the session when the grace runs out.
   */
  leave?: (session: { sid: string; key: string }) => void;
}

export interface TerminalSize {
  w: number;
  h: number;
}

/** `reconnecting`: the connection dropped and the client is resuming the session on a new one. */
export type TtyState =
  'idle' | 'connecting' | 'authenticating' | 'open' | 'reconnecting' | 'closed';

/**
 * Who ended the connection: the server with a session end (`c`), this client (the tab closed,
 * or the server's answer was refused), or neither: the socket closed by itself.
 */
export type TtyEndedBy = 'server' | 'client' | 'socket';

export interface TtyCloseInfo {
  code: number;
  /** Why the session is over, for "disconnected: <reason>". */
  reason: string;
  endedBy: TtyEndedBy;
}

/** The close code of a proxy going away (it is shutting down). */
export const goingAway = 1001;
/** The close code of a connection lost without a close frame (the proxy died, the network broke). */
export const abnormalClosure = 1006;

/**
 * The proxy went away rather than the session ending: it shut down (its session end, or a 1001
 * close) or the connection broke with no session end (1006: the proxy was killed). Through a load
 * balancer a new connection lands on a proxy that is up, so it is worth offering one.
 */
export function proxyWentAway(info: TtyCloseInfo): boolean {
  if (info.endedBy === 'server') return info.reason === sessionEndReasons.shutdown;
  if (info.endedBy === 'client') return false;
  return info.code === goingAway || info.code === abnormalClosure;
}

export interface TtyEvents {
  state: [state: TtyState];
  /** Authenticated: binary frames flow from now on. */
  open: [];
  /** Decoded output and the number of payload bytes it came from (for `processed`). */
  output: [text: string, bytes: number];
  /** `s`: the session as the server knows it (sid, hostname, parties). */
  session: [session: ActiveSessionJson];
  /** `a`: every audit event, as sent, but those of file transfer requests (`fileTransfer`). */
  audit: [event: Record<string, unknown>];
  /**
   * `a`: a moderated file transfer request was made, approved (once, or for good) or denied;
   * every participant hears each step (docs/file-transfer.md, "Moderated sessions").
   */
  fileTransfer: [event: FileTransferRequestEvent];
  /** A line for the user about the session, e.g. `[alice joined as observer]`. */
  notice: [text: string];
  /** Another party resized the session's terminal. */
  resize: [size: TerminalSize];
  /**
   * `n`: the session starts only after a fresh second factor (role option require_session_mfa);
   * answer with `answerMfa`.
   */
  mfaChallenge: [challenge: MfaChallenge];
  /** `e`: an error the server reported; the session may go on. */
  error: [message: string];
  /**
   * The connection dropped without a close; the client is resuming the session over new
   * sockets for up to `graceMs` (docs/protocol.md §6.1). Output and keystrokes wait meanwhile.
   */
  reconnecting: [graceMs: number];
  /** Resumed: the output missed meanwhile follows, then the live stream. */
  resumed: [];
  /** `c`: the server ended the session. */
  end: [reason: string];
  /** The socket is closed; emitted once. */
  close: [info: TtyCloseInfo];
}
