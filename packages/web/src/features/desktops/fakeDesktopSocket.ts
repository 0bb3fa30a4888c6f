import { FakeSocket } from '../console/tty/fakeSocket';
import type { DesktopSocket, SocketCloseInfo } from './desktopConnection';

/**
 * The console's fake WebSocket, with what the desktop session uses besides: `close` listeners
 * (read after noVNC owns `onclose`) and `protocol`, which noVNC checks a channel for.
 */
export class FakeDesktopSocket extends FakeSocket implements DesktopSocket {
  readonly protocol = '';
  private readonly closeListeners: ((event: SocketCloseInfo) => void)[] = [];

  addEventListener(type: 'close', listener: (event: SocketCloseInfo) => void): void {
    if (type === 'close') this.closeListeners.push(listener);
  }

  override close(code?: number, reason?: string): void {
    const wasClosed = this.readyState === FakeSocket.CLOSED;
    super.close(code, reason);
    if (!wasClosed) this.closed({ code: code ?? 1005, reason: reason ?? '' });
  }

  override serverClose(code = 1000, reason = ''): void {
    super.serverClose(code, reason);
    this.closed({ code, reason });
  }

  private closed(event: SocketCloseInfo): void {
    for (const listener of this.closeListeners) listener(event);
  }
}
