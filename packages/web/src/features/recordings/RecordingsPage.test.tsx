import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routeTable } from '../../app/routes';
import { jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { sessionEndFixtures } from './fixtures';
import { RecordingsPage } from './RecordingsPage';

afterEach(() => vi.unstubAllGlobals());

/** A server with 70 session end events in two pages, chained by startKey. */
function stubServer() {
  const stub = vi.fn(async (url: string) => {
    const params = new URL(url, 'http://x').searchParams;
    return params.get('startKey') === 'page-2'
      ? jsonResponse({ events: sessionEndFixtures(10, 60), startKey: '' })
      : jsonResponse({ events: sessionEndFixtures(60), startKey: 'page-2' });
  });
  vi.stubGlobal('fetch', stub);
  const urls = () => stub.mock.calls.map(([url]) => new URL(url, 'http://x'));
  return { urls };
}

describe('RecordingsPage (useRecordings)', () => {
  it('searches session end events of the last 7 days, 5000 per request, following startKey', async () => {
    const { urls } = stubServer();
    const user = userEvent.setup();
    renderPage(<RecordingsPage />);
    await screen.findByText('1–50 of 60');
    const first = urls()[0]!;
    expect(first.pathname).toBe('/v1/webapi/sites/localhost/events/search/sessions');
    expect(first.searchParams.get('limit')).toBe('5000');
    const from = Date.parse(first.searchParams.get('from')!);
    expect((Date.parse(first.searchParams.get('to')!) - from) / 86_400_000).toBeCloseTo(7);
    expect(first.searchParams.has('startKey')).toBe(false);
    expect(first.searchParams.has('search')).toBe(false);

    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('51–70 of 70');
    const second = urls()[1]!.searchParams;
    expect(second.get('startKey')).toBe('page-2');
    expect(second.get('from')).toBe(first.searchParams.get('from'));
  });

  it('sends the text search to the server, from its first page', async () => {
    const { urls } = stubServer();
    const user = userEvent.setup();
    renderPage(<RecordingsPage />);
    await screen.findByText('1–50 of 60');
    await user.type(screen.getByRole('searchbox', { name: 'Search recordings' }), 'web-5{Enter}');
    await waitFor(() => expect(urls().at(-1)!.searchParams.get('search')).toBe('web-5'));
    expect(urls().at(-1)!.searchParams.has('startKey')).toBe(false);
  });

  it('fetches nothing while the custom range is reversed', async () => {
    const { urls } = stubServer();
    const user = userEvent.setup();
    renderPage(<RecordingsPage />);
    await screen.findByText('1–50 of 60');
    const preset = screen.getAllByLabelText('Time range').find((el) => el.tagName === 'INPUT');
    await user.click(preset!);
    await user.click(await screen.findByRole('option', { name: 'Custom range' }));
    await waitFor(() => expect(urls()).toHaveLength(2));
    const to = screen.getByLabelText('To');
    await user.clear(to);
    await user.type(to, '2000-01-01T00:00');
    expect(screen.getByText('Must be after From')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
    expect(urls()).toHaveLength(2);
  });

  it('plays a recording in the player, with its type and length in the query', async () => {
    stubServer();
    const user = userEvent.setup();
    const { router } = renderPage(<RecordingsPage />, {
      routes: [{ path: routeTable.player.path, element: <p>Player</p> }],
    });
    await user.click(await screen.findByRole('link', { name: 'Play recording of kube-1' }));
    await screen.findByText('Player');
    expect(router.state.location.pathname).toBe('/web/cluster/localhost/session/sid-1');
    const query = new URLSearchParams(router.state.location.search);
    expect(query.get('recordingType')).toBe('k8s');
    expect(query.get('durationMs')).toBe('120000');
  });
});
