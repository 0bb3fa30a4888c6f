import {
  type CreateSessionResponse,
  type MfaChallenge,
  type SessionMfaResponse,
} from '@postern/contracts';
import {
  desktopSocketUrl,
  type DesktopConnectionOptions,
  type DesktopSocket,
  type DesktopStatus,
  type RfbClient,
  type SocketCloseInfo,
  type StartRfb,
} from './desktopConnectionParts';

export * from './desktopConnectionParts';

/**
 * A desktop session's connection, free of React: the desktop connect socket (docs: "the
 * terminal sockets' first frame and answer", then RFB), its in-band authentication, and the
 * hand-off of the open socket to noVNC, which speaks RFB through it from then on. The page
 * (DesktopSessionPage) shows what `onStatus` reports and calls the actions.
 */

const normalClosure = 1000;

export class DesktopConnection {
  private socket: DesktopSocket | undefined;
  private rfb: RfbClient | undefined;
  private step: 'loading' | 'authenticating' | 'handshake' = 'loading';
  private connected = false;
  /** Why the session never started (refused auth, a broken answer, a viewer that failed). */
  private refusal: string | undefined;
  private securityFailure: string | undefined;
  private closeInfo: SocketCloseInfo | undefined;
  private rfbEnd: { clean: boolean } | undefined;
  private userDisconnected = false;
  /** The answer to the server's per-session MFA challenge, sent with the bearer. */
  private mfaResponse: SessionMfaResponse | undefined;
  private disposed = false;
  private lastStatus = '';
  /** The clipboard text both sides have now, so neither gets its own text back. */
  private sharedText: string | undefined;
  private readonly cleanups: (() => void)[] = [];

  constructor(private readonly options: DesktopConnectionOptions) {}

  /** Loads noVNC, then opens the socket and sends the bearer as soon as it opens. */
  async start(): Promise<void> {
    const { deps } = this.options;
    const token = deps.token();
    if (!token) {
      this.refusal = 'not signed in';
      this.update();
      return;
    }
    this.update();
    let startRfb: StartRfb;
    try {
      startRfb = await deps.loadRfb();
    } catch (err) {
      this.refusal = `could not load the desktop viewer: ${messageOf(err)}`;
      this.update();
      return;
    }
    if (this.disposed || this.userDisconnected) return;
    this.open(startRfb, token);
  }

  /** Opens the socket and proves who we are in its first frame (with an MFA answer, if any). */
  private open(startRfb: StartRfb, token: string): void {
    const { deps } = this.options;
    const socket = deps.createSocket(
      desktopSocketUrl(deps.origin, this.options.target, this.options.size),
    );
    this.socket = socket;
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => {
      this.step = 'authenticating';
      this.update();
      const mfa = this.mfaResponse ? { mfa_response: this.mfaResponse } : {};
      socket.send(JSON.stringify({ token, ...mfa }));
    };
    socket.onmessage = (event) => this.receive(event.data, startRfb, token);
    socket.onerror = () => {
      // The close event follows with the details.
    };
    socket.onclose = (event) => {
      this.closeInfo = { code: event.code, reason: event.reason };
      this.update();
    };
  }

  /** Ctrl-Alt-Del to the desktop (no browser lets a page see that combination typed). */
  ctrlAltDel(): void {
    this.rfb?.sendCtrlAltDel();
    this.rfb?.focus({ preventScroll: true });
  }

  /** The user ends the session. */
  disconnect(): void {
    if (this.ended()) return;
    this.userDisconnected = true;
    this.stop();
    this.update();
  }

  /** The page goes away: everything stops, nothing more is reported. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stop();
  }

  private stop(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    if (this.rfb) this.rfb.disconnect();
    else this.socket?.close(normalClosure);
  }

  /** Before the hand-off, frames carry only the answer to the bearer. */
  private receive(data: unknown, startRfb: StartRfb, token: string): void {
    if (this.ended()) return;
    if (typeof data !== 'string') {
      this.refuse('the server sent desktop data before the session was authorised');
      return;
    }
    let answer: Partial<CreateSessionResponse>;
    try {
      answer = JSON.parse(data) as Partial<CreateSessionResponse>;
    } catch {
      this.refuse('unexpected answer from the server');
      return;
    }
    if (answer.type !== 'create_session_response') return;
    if (answer.status !== 'ok') {
      if (answer.code === 'mfa_required' && this.options.onMfa && !this.mfaResponse) {
        void this.askForMfa(startRfb, token);
        return;
      }
      this.refuse(answer.message || 'the server refused the session');
      return;
    }
    this.handOff(startRfb);
  }

  /** The server wants a fresh second factor: this socket goes, and the next carries the answer. */
  private async askForMfa(startRfb: StartRfb, token: string): Promise<void> {
    const socket = this.socket;
    if (socket) {
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      socket.close(normalClosure);
    }
    let challenge: MfaChallenge;
    try {
      challenge = await this.options.deps.mfaChallenge(
        `desktop:${this.options.target.desktopName}`,
      );
    } catch (err) {
      this.refuse(messageOf(err));
      return;
    }
    if (this.disposed || this.userDisconnected) return;
    this.options.onMfa?.(challenge, {
      answer: (response) => {
        this.mfaResponse = response;
        this.open(startRfb, token);
      },
      cancel: () => this.refuse('this desktop needs a fresh two-factor check, which was cancelled'),
    });
  }

  /**
   * The socket is authenticated: noVNC takes it over, in this same message event, so no RFB
   * byte can arrive before it listens. noVNC replaces the socket's `on…` handlers; the close
   * reason (a lock, an unreachable desktop) is read with a listener of our own, since noVNC's
   * events do not carry it.
   */
  private handOff(startRfb: StartRfb): void {
    const socket = this.socket;
    if (!socket) return;
    socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
    socket.addEventListener('close', (event) => {
      this.closeInfo = { code: event.code, reason: event.reason };
      this.update();
    });
    this.step = 'handshake';
    let rfb: RfbClient;
    try {
      rfb = startRfb(this.options.screen, socket);
    } catch (err) {
      this.refuse(`could not start the desktop viewer: ${messageOf(err)}`);
      return;
    }
    this.rfb = rfb;
    // The desktop fills the page, scaled to fit; the proxy passes our size on to desktops that
    // can change theirs (SetDesktopSize).
    rfb.scaleViewport = true;
    rfb.resizeSession = true;
    rfb.addEventListener('connect', () => {
      this.connected = true;
      this.update();
      rfb.focus({ preventScroll: true });
      if (this.options.clipboardSharing) void this.sendBrowserClipboard();
    });
    rfb.addEventListener('disconnect', (event) => {
      this.rfbEnd = { clean: event.detail.clean };
      for (const cleanup of this.cleanups.splice(0)) cleanup();
      this.update();
    });
    rfb.addEventListener('securityfailure', (event) => {
      this.securityFailure =
        event.detail.reason || `security type refused (status ${event.detail.status})`;
      this.update();
    });
    if (this.options.clipboardSharing) this.shareClipboard(rfb);
    this.update();
  }

  /**
   * Clipboard sharing, both ways: the desktop's copies go to the browser's clipboard (when the
   * browser lets the page write it), and the browser's text goes to the desktop when the page
   * gets focus back and on paste. Without sharing, none of this is wired.
   */
  private shareClipboard(rfb: RfbClient): void {
    const { clipboard, events } = this.options.deps;
    rfb.addEventListener('clipboard', (event) => {
      this.sharedText = event.detail.text;
      clipboard?.writeText(event.detail.text).catch(() => {
        // Not focused, or not allowed: the desktop's text stays there.
      });
    });
    const onFocus = () => void this.sendBrowserClipboard();
    const onPaste = (event: Event) => {
      const text = (event as ClipboardEvent).clipboardData?.getData('text/plain');
      if (text) this.pasteToDesktop(text);
    };
    events.addEventListener('focus', onFocus);
    events.addEventListener('paste', onPaste, true);
    this.cleanups.push(() => {
      events.removeEventListener('focus', onFocus);
      events.removeEventListener('paste', onPaste, true);
    });
  }

  private async sendBrowserClipboard(): Promise<void> {
    const clipboard = this.options.deps.clipboard;
    if (!clipboard || !this.connected || this.ended()) return;
    let text: string;
    try {
      text = await clipboard.readText();
    } catch {
      return; // The browser did not let the page read it (no focus, no permission).
    }
    if (text && text !== this.sharedText) this.pasteToDesktop(text);
  }

  private pasteToDesktop(text: string): void {
    if (!this.rfb || !this.connected || this.ended()) return;
    this.sharedText = text;
    this.rfb.clipboardPasteFrom(text);
  }

  private refuse(reason: string): void {
    this.refusal ??= reason;
    this.stop();
    this.update();
  }

  private ended(): boolean {
    return this.status().state === 'ended';
  }

  /** What the page shows, from everything known so far, whatever order the events came in. */
  private status(): DesktopStatus {
    const ended = (reason: string, failed = true): DesktopStatus => ({
      state: 'ended',
      reason,
      failed,
    });
    if (this.refusal) return ended(this.refusal);
    if (this.securityFailure)
      return ended(`the desktop refused the connection: ${this.securityFailure}`);
    if (this.userDisconnected) return ended('you disconnected', false);
    const close = this.closeInfo;
    if (close?.reason) return ended(close.reason);
    if (close && !this.rfb) return ended(`could not connect to the desktop (code ${close.code})`);
    if (this.rfbEnd?.clean === false || (close && !this.connected)) {
      return ended(
        close
          ? `the connection to the desktop was lost (code ${close.code})`
          : 'the connection to the desktop was lost',
      );
    }
    if (this.rfbEnd || close) return ended('the desktop session ended', false);
    if (this.connected) return { state: 'connected' };
    return { state: 'connecting', step: this.step };
  }

  private update(): void {
    if (this.disposed) return;
    const status = this.status();
    const key = JSON.stringify(status);
    if (key === this.lastStatus) return;
    this.lastStatus = key;
    this.options.onStatus(status);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
