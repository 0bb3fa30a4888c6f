import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { connect, renderWithDeps, installDesktopSessionFakes } from './desktopSession.testkit';

// The desktop session's clipboard: shared both ways when the roles allow it, and never otherwise.

vi.mock('@novnc/novnc', () => import('./fakeRfb'));
installDesktopSessionFakes();

describe('the desktop session’s clipboard', () => {
  function fakeClipboard(text: string) {
    const clipboard = {
      text,
      readText: vi.fn(async () => clipboard.text),
      writeText: vi.fn(async (value: string) => {
        clipboard.text = value;
      }),
    };
    return clipboard;
  }

  const paste = (text: string) =>
    Object.assign(new Event('paste'), { clipboardData: { getData: () => text } });

  it('shared: the browser’s text goes to the desktop on connect, focus and paste; the desktop’s to the browser', async () => {
    const clipboard = fakeClipboard('from the browser');
    const events = new EventTarget();
    renderWithDeps({ clipboard, events }, true);
    expect(await screen.findByText('Clipboard sharing on')).toBeTruthy();
    const { rfb } = await connect();
    await waitFor(() => expect(rfb.clipboardPasteFrom).toHaveBeenCalledWith('from the browser'));

    act(() => rfb.emit('clipboard', { text: 'from the desktop' }));
    expect(clipboard.writeText).toHaveBeenCalledWith('from the desktop');

    // Back to the page: the desktop's own text is not sent back to it; new text is.
    act(() => void events.dispatchEvent(new Event('focus')));
    await waitFor(() => expect(clipboard.readText).toHaveBeenCalledTimes(2));
    expect(rfb.clipboardPasteFrom).toHaveBeenCalledTimes(1);
    clipboard.text = 'copied elsewhere';
    act(() => void events.dispatchEvent(new Event('focus')));
    await waitFor(() =>
      expect(rfb.clipboardPasteFrom).toHaveBeenLastCalledWith('copied elsewhere'),
    );

    act(() => void events.dispatchEvent(paste('pasted text')));
    expect(rfb.clipboardPasteFrom).toHaveBeenLastCalledWith('pasted text');
    expect(rfb.clipboardPasteFrom).toHaveBeenCalledTimes(3);
  });

  it('a clipboard the browser will not give or take is no error', async () => {
    const clipboard = {
      readText: vi.fn(() => Promise.reject(new DOMException('denied', 'NotAllowedError'))),
      writeText: vi.fn(() => Promise.reject(new DOMException('denied', 'NotAllowedError'))),
    };
    renderWithDeps({ clipboard, events: new EventTarget() }, true);
    const { rfb } = await connect();
    await waitFor(() => expect(clipboard.readText).toHaveBeenCalled());
    act(() => rfb.emit('clipboard', { text: 'from the desktop' }));
    expect(clipboard.writeText).toHaveBeenCalled();
    expect(rfb.clipboardPasteFrom).not.toHaveBeenCalled();
    expect(screen.getByText('Connected')).toBeTruthy();
  });

  it('not shared: said in the toolbar, and nothing crosses either way', async () => {
    const clipboard = fakeClipboard('from the browser');
    const events = new EventTarget();
    renderWithDeps({ clipboard, events }, false);
    expect(await screen.findByText('Clipboard sharing off')).toBeTruthy();
    const { rfb } = await connect();
    act(() => rfb.emit('clipboard', { text: 'from the desktop' }));
    act(() => void events.dispatchEvent(new Event('focus')));
    act(() => void events.dispatchEvent(paste('pasted text')));
    await act(() => Promise.resolve());
    expect(clipboard.readText).not.toHaveBeenCalled();
    expect(clipboard.writeText).not.toHaveBeenCalled();
    expect(rfb.clipboardPasteFrom).not.toHaveBeenCalled();
  });
});
