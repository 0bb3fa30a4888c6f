import type { RecordingChunk, RecordingInfo } from '@postern/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeToken } from '../../api/credentials';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
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
  storeToken({
    accessToken: 'bearer-tok',
    expiresIn: 600,
    created: Date.now(),
    sessionExpires: '',
    sessionInactiveTimeout: 0,
  });
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

  it('does not play desktop recordings', async () => {
    const stub = stubServer();
    renderPlayer('recordingType=desktop');
    expect(await screen.findByText('Desktop recordings cannot be played yet')).toBeTruthy();
    expect(stub).not.toHaveBeenCalled();
  });
});
