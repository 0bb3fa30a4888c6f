import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseFixtures, databasePage } from '../features/databases/fixtures';
import { resourcePage } from '../features/resources/fixtures';
import { json, renderApp, serverData, signIn } from '../test/routerHarness';
import { aclWith, presetAcls, userContextFixture } from '../test/userContexts';

afterEach(() => vi.unstubAllGlobals());

// The page's chunk holds every kind's Connect: transform it before the first test's clock starts.
beforeAll(() => import('../features/resources/ResourcesPage'), 30_000);

describe('the unified Resources page', () => {
  const resourcesUrl = '/v1/webapi/sites/root.example.com/resources?limit=15';
  const respond = (url: string) => (url === resourcesUrl ? json(resourcePage()) : serverData(url));

  it('/web/cluster/:clusterId/resources lists every kind, first in the nav, for the access preset', async () => {
    signIn();
    renderApp(
      '/web/cluster/root.example.com/resources',
      respond,
      userContextFixture(presetAcls.access),
    );
    expect(await screen.findByRole('heading', { name: 'Resources', level: 2 })).toBeTruthy();
    expect(await screen.findByText('grafana')).toBeTruthy();
    expect(screen.getByText('orders')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    const link = within(nav).getByRole('link', { name: 'Resources' });
    expect(link.getAttribute('href')).toBe('/web/cluster/root.example.com/resources');
    expect(within(nav).getAllByRole('link')[0]).toBe(link);
    await waitFor(() => expect(document.title).toBe('root.example.com • Resources'));
  });

  it('is listed, and opens, for a user who may list a single kind', async () => {
    signIn();
    const acl = aclWith({ dbServers: ['list', 'read'] });
    renderApp('/web/cluster/root.example.com/resources', respond, userContextFixture(acl));
    expect(await screen.findByText('orders')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Resources' })).toBeTruthy();
  });

  it('/web still lands on the first kind’s own page, not on Resources', async () => {
    signIn();
    const databasesUrl = '/v1/webapi/sites/root.example.com/databases?limit=15';
    const router = renderApp(
      '/web',
      (url) => (url === databasesUrl ? json(databasePage(databaseFixtures)) : serverData(url)),
      userContextFixture(aclWith({ dbServers: ['list', 'read'] })),
    );
    expect(await screen.findByRole('heading', { name: 'Databases', level: 2 })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/web/cluster/root.example.com/databases');
  });

  it('is neither listed nor open to a user who may list no kind', async () => {
    signIn();
    renderApp(
      '/web/cluster/root.example.com/resources',
      respond,
      userContextFixture(presetAcls.editor),
    );
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).queryByRole('link', { name: 'Resources' })).toBeNull();
  });
});
