import type { DesktopRecordingInfo, RecordingChunk, RecordingInfo } from '@postern/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse, storeTestBearer } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import type { FakeSocket } from '../console/tty/fakeSocket';
import { solidRect, type FakeSurface } from './desktop/fakeDesktop';
import type { FakePlaybackTerminal } from './fakePlayback';
import { PlayerPage } from './PlayerPage';

// xterm does not render in jsdom: the player draws into a recording fake instead.
const fake = vi.hoisted(() => ({ terminals: [] as FakePlaybackTerminal[] }));
vi.mock('./playerTerminal', async () => {
  const { FakePlaybackTerminal: Terminal } = await import('./fakePlayback');
  return {
    openPlayerTerminal: () => {
      const terminal = new Terminal();
      fake.terminals.push(terminal);
      return Object.assign(terminal, { dispose: () => undefined });
    },
  };
});

// Nor does a canvas draw: the desktop player draws on a recording fake, over a fake socket.
const desktop = vi.hoisted(() => ({
  sockets: [] as FakeSocket[],
  surfaces: [] as FakeSurface[],
}));
vi.mock('./desktop/desktopSocket', async () => {
  const { FakeSocket: Socket } = await import('../console/tty/fakeSocket');
  return {
    openDesktopPlaybackSocket: (clusterId: string, sid: string) => {
      const socket = new Socket(`ws://proxy/${clusterId}/${sid}`);
      desktop.sockets.push(socket);
      return socket;
    },
  };
});
vi.mock('./desktop/canvasSurface', async () => {
  const { FakeSurface: Surface } = await import('./desktop/fakeDesktop');
  return {
    openCanvasSurface: () => {
      const surface = new Surface();
      desktop.surfaces.push(surface);
      return surface;
    },
  };
});

const desktopInfo: DesktopRecordingInfo = {
  sid: 'sid-1',
  durationMs: 65_000,
  incomplete: false,
  width: 1280,
  height: 800,
  size: 123_456,
  keyframeTimes: [0, 5000],
  desktopName: 'win-1',
};

const info: RecordingInfo = {
  sid: 'sid-1',
  durationMs: 65_000,
  incomplete: false,
  cols: 100,
  rows: 30,
  title: 'alice@db-1',
  castBytes: 1234,
  keyframeTimes: [],
  marks: [{ t: 5, kind: 'join', label: 'bob joined (peer)' }],
};
const firstChunk: RecordingChunk = { events: [[0, 'o', 'hello ']], next: null };

function stubServer(answers: { info?: Response } = {}) {
  const stub = vi.fn(async (url: string, _init?: RequestInit) => {
    const { pathname, searchParams } = new URL(url, 'http://x');
    if (pathname.endsWith('/recording/info')) return answers.info ?? jsonResponse(info);
    if (pathname.endsWith('/desktopplayback/sid-1'))
      return answers.info ?? jsonResponse(desktopInfo);
    if (pathname.endsWith('/recording/events')) return jsonResponse(firstChunk);
    if (searchParams.get('format') === 'cast') return new Response('{"version":2}\n');
    return errorResponse(404, 'not found');
  });
  vi.stubGlobal('fetch', stub);
  return stub;
}

const playerUrl = (query: string) => `/web/cluster/one/session/sid-1?${query}`;
const renderPlayer = (query = 'recordingType=ssh') =>
  renderPage(<PlayerPage />, {
    path: '/web/cluster/:clusterId/session/:sid',
    url: playerUrl(query),
  });

beforeEach(() => {
  fake.terminals.length = 0;
  desktop.sockets.length = 0;
  desktop.surfaces.length = 0;
  storeTestBearer();
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('PlayerPage', () => {
  it('loads the info, then plays the events into a terminal of the recording size', async () => {
    const stub = stubServer();
    renderPlayer('recordingType=ssh&durationMs=64000');
    expect(await screen.findByRole('heading', { name: 'alice@db-1' })).toBeTruthy();
    // The list's duration is used as given.
    expect(screen.getByTestId('player-time').textContent).toBe('00:00 / 01:04');
    await waitFor(() => expect(fake.terminals[0]?.written()).toBe('hello '));
    expect(fake.terminals[0]!.calls.slice(0, 2)).toEqual(['reset', 'resize 100x30']);
    // The info's marks are on the timeline; playback is real time until Skip idle is chosen.
    expect(screen.getByRole('button', { name: 'bob joined (peer) at 00:05' })).toBeTruthy();
    expect((screen.getByRole('checkbox', { name: 'Skip idle' }) as HTMLInputElement).checked).toBe(
      false,
    );

    const urls = stub.mock.calls.map(([url]) => url);
    expect(urls).toContain('/v1/webapi/sites/one/sessions/sid-1/recording/info');
    expect(urls).toContain('/v1/webapi/sites/one/sessions/sid-1/recording/events?at=0');
    const headers = new Headers(stub.mock.calls[0]![1]?.headers);
    expect(headers.get('Authorization')).toBe('Bearer bearer-tok');
  });

  it('downloads the cast through the API client as <sid>.cast', async () => {
    const stub = stubServer();
    const saved: { name: string; blob: Blob }[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      saved.push({ name: '', blob: blob as Blob });
      return 'blob:cast';
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      saved[saved.length - 1]!.name = this.download;
    });
    renderPlayer();
    await userEvent.click(await screen.findByRole('button', { name: 'Download .cast' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]!.name).toBe('sid-1.cast');
    expect(await saved[0]!.blob.text()).toBe('{"version":2}\n');
    expect(stub.mock.calls.map(([url]) => url)).toContain(
      '/v1/webapi/sites/one/sessions/sid-1/recording?format=cast',
    );
  });

  it('says so when the recording is not there', async () => {
    stubServer({ info: errorResponse(404, 'recording not found') });
    renderPlayer();
    expect(await screen.findByText('Recording not found')).toBeTruthy();
    expect(
      screen.getByRole('link', { name: 'Back to Session Recordings' }).getAttribute('href'),
    ).toBe('/web/cluster/one/recordings');
  });

  it('plays desktop recordings on a canvas, from their playback socket', async () => {
    const stub = stubServer();
    renderPlayer('recordingType=desktop&durationMs=64000');
    expect(await screen.findByRole('heading', { name: 'Desktop win-1' })).toBeTruthy();
    const canvas = screen.getByRole('img', { name: 'Recorded desktop' }) as HTMLCanvasElement;
    expect([canvas.width, canvas.height]).toEqual([1280, 800]);
    expect(screen.getByTestId('player-time').textContent).toBe('00:00 / 01:04');
    expect(stub.mock.calls.map(([url]) => url)).toEqual([
      '/v1/webapi/sites/one/desktopplayback/sid-1',
    ]);

    await waitFor(() => expect(desktop.sockets).toHaveLength(1));
    const socket = desktop.sockets[0]!;
    expect(socket.url).toBe('ws://proxy/one/sid-1');
    socket.open();
    expect(socket.sent).toEqual([JSON.stringify({ token: 'bearer-tok' })]);
    socket.accept();
    const send = (message: unknown) => socket.receiveText(JSON.stringify({ message }));
    send({ type: 'screen', ms: 0, width: 1280, height: 800 });
    send({ ...(await solidRect(0, 0, 16, 8, 9, true)), ms: 0 });
    await waitFor(() =>
      expect(desktop.surfaces[0]!.calls).toEqual(['resize 1280x800', 'draw 0,0 16x8 9 512']),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(JSON.parse(socket.sent.at(-1) as string)).toEqual({ action: 'play/pause' });
    expect(screen.getByRole('button', { name: 'Play' })).toBeTruthy();
  });

  it('says so when a desktop recording may not be played', async () => {
    stubServer({ info: errorResponse(403, 'access denied') });
    renderPlayer('recordingType=desktop');
    expect(await screen.findByText('Access Denied')).toBeTruthy();
    expect(desktop.sockets).toEqual([]);
  });

  it('does not play recordings of a type it does not know', async () => {
    const stub = stubServer();
    renderPlayer('recordingType=vhs');
    expect(await screen.findByText('Recordings of type "vhs" cannot be played')).toBeTruthy();
    expect(stub).not.toHaveBeenCalled();
  });
});
