import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserContext } from '@postern/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { resourceCart } from '../accessRequests/resourceCart';
import { DatabasesPage } from './DatabasesPage';
import { databaseFixtures, databasePage } from './fixtures';

// The Databases page on a stubbed server: the list, and the request cart beside Connect.

afterEach(() => {
  vi.unstubAllGlobals();
  resourceCart().clear();
});

function setup(context?: UserContext, query = '') {
  const fetchStub = vi.fn(async (url: string) =>
    url.startsWith('/v1/webapi/sites/root/databases?')
      ? jsonResponse(databasePage(databaseFixtures))
      : errorResponse(404, 'not found', 'not_found'),
  );
  vi.stubGlobal('fetch', fetchStub);
  renderPage(<DatabasesPage />, {
    path: '/web/cluster/:clusterId/databases',
    url: `/web/cluster/root/databases${query}`,
    context,
  });
  const urls = () => fetchStub.mock.calls.map(([url]) => url);
  return { urls, user: userEvent.setup() };
}

const requester = (allowedSearchAsRoles: string[] = []) =>
  userContextFixture(
    aclWith({
      dbServers: ['list', 'read'],
      db: ['list', 'read'],
      accessRequests: ['list', 'create'],
    }),
    { allowedSearchAsRoles },
  );

describe('DatabasesPage', () => {
  it('asks for the list with the URL’s search and sort', async () => {
    const { urls } = setup(undefined, '?search=ord&sort=type:desc');
    expect(await screen.findByText('Orders (primary)')).toBeTruthy();
    const url = new URL(urls()[0]!, 'https://proxy.example.com');
    expect(url.pathname).toBe('/v1/webapi/sites/root/databases');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      limit: '15',
      search: 'ord',
      sort: 'type:desc',
    });
  });

  it('puts databases in the request cart beside Connect, and shows its count', async () => {
    const { user } = setup(requester());
    await user.click(await screen.findByRole('button', { name: 'Add orders to request' }));
    expect(resourceCart().items()).toEqual([
      { kind: 'db', clusterName: 'root', name: 'orders', title: 'orders' },
    ]);
    expect(screen.getByRole('link', { name: 'Request access (1)' }).getAttribute('href')).toBe(
      '/web/requests/new',
    );
    expect(screen.getByRole('button', { name: 'Connect to orders' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Remove orders from request' }));
    expect(resourceCart().items()).toEqual([]);
    expect(screen.queryByRole('switch')).toBeNull();
  });

  it('lists with searchAsRoles=yes while the switch is on', async () => {
    const { urls, user } = setup(requester(['db-read']));
    await screen.findByText('Orders (primary)');
    expect(urls().at(-1)).not.toContain('searchAsRoles');
    await user.click(screen.getByRole('switch', { name: 'Search resources as requestable roles' }));
    await waitFor(() => expect(urls().at(-1)).toContain('searchAsRoles=yes'));
  });

  it('offers no request actions without accessRequests create', async () => {
    setup();
    await screen.findByText('Orders (primary)');
    expect(screen.queryByRole('button', { name: /to request/ })).toBeNull();
    expect(screen.queryByRole('link', { name: /Request access/ })).toBeNull();
  });
});
