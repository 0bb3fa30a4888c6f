import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserContext } from '@postern/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { resourceCart } from '../accessRequests/resourceCart';
import { DesktopsPage } from './DesktopsPage';
import { desktopFixtures, desktopPage } from './fixtures';

// The Desktops page on a stubbed server: the list, and Connect's check for a live session.

afterEach(() => vi.unstubAllGlobals());

const activeUrl = '/v1/webapi/sites/root/desktops/build-box/active';

function setup(active: () => Response, query = '', context?: UserContext) {
  const fetchStub = vi.fn(async (url: string) => {
    if (url.startsWith('/v1/webapi/sites/root/desktops?')) {
      return jsonResponse(desktopPage(desktopFixtures));
    }
    if (url === activeUrl) return active();
    return errorResponse(404, 'not found', 'not_found');
  });
  vi.stubGlobal('fetch', fetchStub);
  renderPage(<DesktopsPage />, {
    path: '/web/cluster/:clusterId/desktops',
    url: `/web/cluster/root/desktops${query}`,
    context,
  });
  const urls = () => fetchStub.mock.calls.map(([url]) => url);
  return { urls, user: userEvent.setup() };
}

async function openConnect(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole('button', { name: 'Connect to build-box' }));
  return screen.findAllByRole('menuitem');
}

describe('DesktopsPage', () => {
  it('asks for the list with the URL’s search, labels and sort', async () => {
    const { urls } = setup(() => jsonResponse({ active: false }), '?search=box&sort=os:desc');
    expect(await screen.findByText('alice, ops')).toBeTruthy();
    const url = new URL(urls()[0]!, 'https://proxy.example.com');
    expect(url.pathname).toBe('/v1/webapi/sites/root/desktops');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      limit: '15',
      search: 'box',
      sort: 'os:desc',
    });
  });

  it('Connect asks whether a session is live only once opened, and says so when one is', async () => {
    const { urls, user } = setup(() => jsonResponse({ active: true }));
    await screen.findByText('alice, ops');
    expect(urls()).not.toContain(activeUrl);
    const items = await openConnect(user);
    await waitFor(() => expect(urls()).toContain(activeUrl));
    const warning = await screen.findByRole('alert');
    expect(warning.textContent).toBe(
      'A session on this desktop is active now. You can still connect.',
    );
    // A warning, not a block: the logins are still there to open.
    expect(items.map((i) => i.getAttribute('href'))).toEqual([
      '/web/cluster/root/desktops/build-box/alice',
      '/web/cluster/root/desktops/build-box/ops',
    ]);
  });

  it('says nothing more when no session is live, and asks again at each opening', async () => {
    const active = vi.fn(() => jsonResponse({ active: false }));
    const { user } = setup(active);
    await openConnect(user);
    await waitFor(() => expect(active).toHaveBeenCalledTimes(1));
    await waitFor(() => expect(screen.queryByText('Checking for an active session…')).toBeNull());
    expect(screen.queryByRole('alert')).toBeNull();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('menuitem')).toBeNull());
    await openConnect(user);
    await waitFor(() => expect(active).toHaveBeenCalledTimes(2));
  });

  it('a failed check is said, and Connect still works', async () => {
    const { user } = setup(() => errorResponse(403, 'access denied to desktop build-box'));
    const items = await openConnect(user);
    expect(
      await screen.findByText(
        'Could not check for an active session: access denied to desktop build-box',
      ),
    ).toBeTruthy();
    expect(items).toHaveLength(2);
  });
});

describe('DesktopsPage and access requests', () => {
  afterEach(() => resourceCart().clear());

  const requester = (allowedSearchAsRoles: string[] = []) =>
    userContextFixture(
      aclWith({ desktops: ['list', 'read'], accessRequests: ['list', 'create'] }),
      {
        allowedSearchAsRoles,
      },
    );
  const inactive = () => jsonResponse({ active: false });

  it('puts desktops in the request cart beside Connect, and shows its count', async () => {
    const { user } = setup(inactive, '', requester());
    await user.click(await screen.findByRole('button', { name: 'Add build-box to request' }));
    expect(resourceCart().items()).toEqual([
      { kind: 'windows_desktop', clusterName: 'root', name: 'build-box', title: 'build-box' },
    ]);
    expect(screen.getByRole('link', { name: 'Request access (1)' }).getAttribute('href')).toBe(
      '/web/requests/new',
    );
    expect(screen.getByRole('button', { name: 'Connect to build-box' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Remove build-box from request' }));
    expect(resourceCart().items()).toEqual([]);
    expect(screen.queryByRole('switch')).toBeNull();
  });

  it('lists with searchAsRoles=yes while the switch is on', async () => {
    const { urls, user } = setup(inactive, '', requester(['desktop-access']));
    await screen.findByText('alice, ops');
    expect(urls().at(-1)).not.toContain('searchAsRoles');
    await user.click(screen.getByRole('switch', { name: 'Search resources as requestable roles' }));
    await waitFor(() => expect(urls().at(-1)).toContain('searchAsRoles=yes'));
  });

  it('offers no request actions without accessRequests create', async () => {
    setup(inactive);
    await screen.findByText('alice, ops');
    expect(screen.queryByRole('button', { name: /to request/ })).toBeNull();
    expect(screen.queryByRole('link', { name: /Request access/ })).toBeNull();
  });
});
