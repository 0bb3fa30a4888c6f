import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { emptyAcl } from '@postern/contracts';
import { describe, expect, it, vi } from 'vitest';
import { desktopSocketUrl } from './desktopConnection';
import {
  button,
  connect,
  endedReason,
  firstSocket,
  renderSession,
  sessionPath,
  sockets,
  installDesktopSessionFakes,
} from './desktopSession.testkit';
import { rfbInstances } from './fakeRfb';

// The desktop session page: the connect socket's in-band bearer, then noVNC on the open socket.
// Its per-session MFA check and its clipboard have files of their own.

vi.mock('@novnc/novnc', () => import('./fakeRfb'));
installDesktopSessionFakes();

describe('the desktop session page', () => {
  it('authenticates in-band, then hands the open socket to noVNC', async () => {
    renderSession();
    expect(await screen.findByRole('heading', { name: 'build-box', level: 1 })).toBeTruthy();
    expect(screen.getByLabelText('Login').textContent).toBe('alice');
    expect(screen.getByText('Clipboard sharing on')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Postern desktops' }).getAttribute('href')).toBe(
      '/web/cluster/root/desktops',
    );
    await waitFor(() => expect(document.title).toBe('root • Desktop Session'));

    const socket = await firstSocket();
    const url = new URL(socket.url);
    expect(url.protocol).toBe('ws:');
    expect(url.pathname).toBe('/v1/webapi/sites/root/desktops/build-box/connect/ws');
    // The window's size (jsdom lays nothing out, so the screen's own is 0).
    expect(Object.fromEntries(url.searchParams)).toEqual({
      username: 'alice',
      width: String(window.innerWidth),
      height: String(window.innerHeight),
    });
    expect(socket.url).not.toContain('bearer-tok');
    expect(socket.binaryType).toBe('arraybuffer');
    expect(screen.getByText('Connecting to build-box…')).toBeTruthy();

    // The bearer is the first frame; noVNC gets nothing until the server says ok.
    act(() => socket.open());
    expect(socket.sent).toEqual([JSON.stringify({ token: 'bearer-tok' })]);
    expect(rfbInstances).toHaveLength(0);
    act(() => socket.accept());
    expect(rfbInstances).toHaveLength(1);
    const rfb = rfbInstances[0]!;
    expect(rfb.channel).toBe(socket);
    expect(rfb.target).toBe(screen.getByTestId('desktop-screen'));
    expect(rfb.options).toEqual({ shared: true });
    expect(rfb.scaleViewport).toBe(true);
    expect(rfb.resizeSession).toBe(true);
    // noVNC owns the socket's handlers from now on.
    expect(socket.onmessage).toBeNull();
    expect(await screen.findByText('Starting the desktop…')).toBeTruthy();
    expect(button('Ctrl-Alt-Del').disabled).toBe(true);

    act(() => rfb.emit('connect'));
    expect(await screen.findByText('Connected')).toBeTruthy();
    expect(screen.queryByText('Connecting to build-box…')).toBeNull();
    expect(rfb.focus).toHaveBeenCalled();
    expect(socket.sent).toHaveLength(1);
  });

  it('Ctrl-Alt-Del goes to the desktop; Disconnect ends the session', async () => {
    renderSession();
    const { rfb } = await connect();
    const user = userEvent.setup();
    await user.click(button('Ctrl-Alt-Del'));
    expect(rfb.sendCtrlAltDel).toHaveBeenCalledTimes(1);

    await user.click(button('Disconnect'));
    expect(rfb.disconnect).toHaveBeenCalledTimes(1);
    expect((await endedReason()).textContent).toBe('you disconnected');
    expect(screen.getByRole('status').textContent).toContain('you disconnected');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(button('Disconnect').disabled).toBe(true);
    expect(button('Ctrl-Alt-Del').disabled).toBe(true);
    // noVNC says so too, later: nothing changes.
    act(() => rfb.emit('disconnect', { clean: true }));
    expect((await endedReason()).textContent).toBe('you disconnected');
  });

  it.each([
    'access denied: your roles allow no login alice on desktop build-box',
    'locked: maintenance of the desktops until 18:00',
  ])('a refused bearer shows the server’s message: %s', async (message) => {
    renderSession();
    const socket = await firstSocket();
    act(() => socket.open());
    act(() =>
      socket.receiveText(
        JSON.stringify({ type: 'create_session_response', status: 'error', message }),
      ),
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Disconnected');
    expect(alert.textContent).toContain(message);
    expect(rfbInstances).toHaveLength(0);
    expect(socket.closedWith).toEqual({ code: 1000, reason: undefined });
  });

  it('a socket closed with a reason before the answer shows the reason; Reconnect tries again', async () => {
    renderSession();
    const socket = await firstSocket();
    act(() => socket.open());
    act(() =>
      socket.serverClose(1011, 'desktop build-box is unreachable: connect ECONNREFUSED 10.0.0.5'),
    );
    expect((await endedReason()).textContent).toBe(
      'desktop build-box is unreachable: connect ECONNREFUSED 10.0.0.5',
    );
    expect(screen.getByRole('alert')).toBeTruthy();
    expect(rfbInstances).toHaveLength(0);

    await userEvent.setup().click(button('Reconnect'));
    await waitFor(() => expect(sockets).toHaveLength(2));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(await screen.findByText('Connecting to build-box…')).toBeTruthy();
  });

  it('a socket closed without a reason before the answer says it could not connect', async () => {
    renderSession();
    const socket = await firstSocket();
    act(() => socket.serverClose(1006));
    expect((await endedReason()).textContent).toBe('could not connect to the desktop (code 1006)');
  });

  it('the close reason of a session ended by the proxy (a lock) is shown, whatever noVNC says first', async () => {
    renderSession();
    const { socket, rfb } = await connect();
    // noVNC's own handler runs first in a browser and calls it a clean end.
    act(() => rfb.emit('disconnect', { clean: true }));
    act(() => socket.serverClose(1000, 'locked: user alice is locked'));
    expect((await endedReason()).textContent).toBe('locked: user alice is locked');
    expect(screen.getByRole('alert')).toBeTruthy();
  });

  it('noVNC’s security failure is said, with its reason', async () => {
    renderSession();
    const socket = await firstSocket();
    act(() => socket.accept());
    const rfb = rfbInstances[0]!;
    act(() => rfb.emit('securityfailure', { status: 1, reason: 'no supported security type' }));
    act(() => rfb.emit('disconnect', { clean: false }));
    expect((await endedReason()).textContent).toBe(
      'the desktop refused the connection: no supported security type',
    );
  });

  it('a connection lost without a reason says so, with the close code', async () => {
    renderSession();
    const { socket, rfb } = await connect();
    act(() => rfb.emit('disconnect', { clean: false }));
    expect((await endedReason()).textContent).toBe('the connection to the desktop was lost');
    act(() => socket.serverClose(1006));
    expect((await endedReason()).textContent).toBe(
      'the connection to the desktop was lost (code 1006)',
    );
  });

  it('a binary frame before the answer is refused: noVNC never sees it', async () => {
    renderSession();
    const socket = await firstSocket();
    act(() => socket.open());
    act(() => socket.receiveFrame(new TextEncoder().encode('RFB 003.008\n')));
    expect((await endedReason()).textContent).toBe(
      'the server sent desktop data before the session was authorised',
    );
    expect(rfbInstances).toHaveLength(0);
  });

  it('Fullscreen takes the whole page to full screen and back', async () => {
    let fullscreenElement: Element | null = null;
    Object.defineProperty(document, 'fullscreenElement', {
      configurable: true,
      get: () => fullscreenElement,
    });
    const requestFullscreen = vi.fn(function (this: HTMLElement) {
      fullscreenElement = this as Element;
      document.dispatchEvent(new Event('fullscreenchange'));
      return Promise.resolve();
    });
    const exitFullscreen = vi.fn(() => {
      fullscreenElement = null;
      document.dispatchEvent(new Event('fullscreenchange'));
      return Promise.resolve();
    });
    HTMLElement.prototype.requestFullscreen = requestFullscreen;
    document.exitFullscreen = exitFullscreen;
    try {
      renderSession();
      const user = userEvent.setup();
      await user.click(await screen.findByRole('button', { name: 'Fullscreen' }));
      expect(requestFullscreen).toHaveBeenCalledTimes(1);
      // The toolbar and the desktop together.
      expect(fullscreenElement).toBe(
        screen.getByTestId('desktop-screen').parentElement!.parentElement,
      );
      await user.click(await screen.findByRole('button', { name: 'Exit fullscreen' }));
      expect(exitFullscreen).toHaveBeenCalledTimes(1);
      expect(await screen.findByRole('button', { name: 'Fullscreen' })).toBeTruthy();
    } finally {
      delete (HTMLElement.prototype as Partial<HTMLElement>).requestFullscreen;
      delete (document as Partial<Document>).exitFullscreen;
      delete (document as { fullscreenElement?: unknown }).fullscreenElement;
    }
  });

  it('needs the desktops flag', async () => {
    renderSession(sessionPath, emptyAcl());
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
    expect(sockets).toHaveLength(0);
  });
});

describe('desktopSocketUrl', () => {
  it('names the login and size in the query, encoded, within the sizes the socket allows', () => {
    const target = { clusterId: 'root', desktopName: 'build-box', username: 'ad min' };
    expect(
      desktopSocketUrl({ protocol: 'https:', host: 'proxy:3080' }, target, {
        width: 1919.6,
        height: 0,
      }),
    ).toBe(
      'wss://proxy:3080/v1/webapi/sites/root/desktops/build-box/connect/ws?username=ad+min&width=1920&height=1',
    );
    expect(
      new URL(
        desktopSocketUrl({ protocol: 'http:', host: 'p' }, target, { width: 10000, height: 900 }),
      ).searchParams.get('width'),
    ).toBe('8192');
  });
});
