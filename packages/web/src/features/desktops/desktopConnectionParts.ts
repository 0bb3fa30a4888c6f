import { apiPaths, type MfaChallenge } from '@postern/contracts';
import type { MfaReply } from '../../components/SessionMfaDialog';
import { socketScheme, type SocketOrigin } from '../console/tty';

/**
 * What a desktop connection (desktopConnection.ts) works with: the connect socket and its URL,
 * noVNC's client as the connection drives it, the outside world tests replace, and the status
 * the page shows.
 */

/** Makes a method-typed (bivariant) handler, so the DOM's WebSocket and test fakes both fit. */
type Handler<E> = { bivariance(event: E): void }['bivariance'];

export interface SocketCloseInfo {
  code: number;
  reason: string;
}

/** What the connection needs of a WebSocket before and after it hands it to noVNC. */
export interface DesktopSocket {
  binaryType: string;
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: Handler<unknown> | null;
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<SocketCloseInfo> | null;
  onerror: Handler<unknown> | null;
  /** Used for `close` after the hand-off, when noVNC owns `onclose`. */
  addEventListener(type: 'close', listener: Handler<SocketCloseInfo>): void;
}

/** The part of noVNC's RFB client the session uses (see novnc.d.ts). */
export interface RfbClient {
  scaleViewport: boolean;
  resizeSession: boolean;
  disconnect(): void;
  sendCtrlAltDel(): void;
  clipboardPasteFrom(text: string): void;
  focus(options?: FocusOptions): void;
  addEventListener(type: 'connect', listener: () => void): void;
  addEventListener(
    type: 'disconnect',
    listener: (event: CustomEvent<{ clean: boolean }>) => void,
  ): void;
  addEventListener(
    type: 'securityfailure',
    listener: (event: CustomEvent<{ status: number; reason?: string }>) => void,
  ): void;
  addEventListener(
    type: 'clipboard',
    listener: (event: CustomEvent<{ text: string }>) => void,
  ): void;
}

/** Starts noVNC on an authenticated socket, drawing into `target`. */
export type StartRfb = (target: HTMLElement, socket: DesktopSocket) => RfbClient;

/** The world outside: the page's browser objects, or fakes in tests. */
export interface DesktopDeps {
  createSocket: (url: string) => DesktopSocket;
  /** Loads noVNC (its own chunk) and says how to start it. */
  loadRfb: () => Promise<StartRfb>;
  /** The bearer token for the socket's first frame. */
  token: () => string | undefined;
  origin: SocketOrigin;
  clipboard: Pick<Clipboard, 'readText' | 'writeText'> | undefined;
  /** Where focus and paste are heard (the window). */
  events: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  /** A per-session MFA challenge for `desktop:<name>` (require_session_mfa). */
  mfaChallenge: (resource: string) => Promise<MfaChallenge>;
}

export interface DesktopTarget {
  clusterId: string;
  desktopName: string;
  username: string;
}

export interface ScreenSize {
  width: number;
  height: number;
}

export type DesktopStatus =
  | { state: 'connecting'; step: 'loading' | 'authenticating' | 'handshake' }
  | { state: 'connected' }
  /** `failed`: refused or lost, as against ended by the user or, cleanly, by the desktop. */
  | { state: 'ended'; reason: string; failed: boolean };

export interface DesktopConnectionOptions {
  target: DesktopTarget;
  /** The screen to ask for: the space the page has for the desktop. */
  size: ScreenSize;
  /** Where noVNC draws. */
  screen: HTMLElement;
  /** The user's ACL `clipboardSharingEnabled`. */
  clipboardSharing: boolean;
  deps: DesktopDeps;
  onStatus: (status: DesktopStatus) => void;
  /**
   * The roles ask for a fresh second factor first: show the challenge, then `answer` (the
   * connection tries again with it) or `cancel`. Without it such a desktop cannot be opened.
   */
  onMfa?: (challenge: MfaChallenge, reply: MfaReply) => void;
}

/** The connect socket's query allows 1…8192 on each side. */
const clampSide = (n: number) => Math.min(8192, Math.max(1, Math.round(n) || 1));

/**
 * `ws(s)://<host>/v1/webapi/sites/<cluster>/desktops/<name>/connect/ws?username=&width=&height=`.
 * The bearer token is never part of the URL: it travels in the first (text) frame.
 */
export function desktopSocketUrl(
  origin: SocketOrigin,
  target: DesktopTarget,
  size: ScreenSize,
): string {
  const query = new URLSearchParams({
    username: target.username,
    width: String(clampSide(size.width)),
    height: String(clampSide(size.height)),
  });
  const path = apiPaths.desktopConnect(target.clusterId, target.desktopName);
  return `${socketScheme(origin.protocol)}://${origin.host}${path}?${query.toString()}`;
}
