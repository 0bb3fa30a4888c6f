import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { databaseFixtures, databasePage } from '../features/databases/fixtures';
import { json, renderApp, serverData, signIn } from '../test/routerHarness';
import { presetAcls, userContextFixture } from '../test/userContexts';

afterEach(() => vi.unstubAllGlobals());

describe('databases', () => {
  const databasesUrl = '/v1/webapi/sites/root.example.com/databases?limit=15';

  it('/web/cluster/:clusterId/databases lists databases for a user who may list db servers', async () => {
    signIn();
    renderApp(
      '/web/cluster/root.example.com/databases',
      (url) => (url === databasesUrl ? json(databasePage(databaseFixtures)) : serverData(url)),
      userContextFixture(presetAcls.access),
    );
    expect(await screen.findByRole('heading', { name: 'Databases', level: 2 })).toBeTruthy();
    expect(await screen.findByText('orders')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Databases' }).getAttribute('href')).toBe(
      '/web/cluster/root.example.com/databases',
    );
    await waitFor(() => expect(document.title).toBe('root.example.com • Databases'));
  });

  it('/web/cluster/:clusterId/databases shows Access Denied without dbServers list', async () => {
    signIn();
    renderApp('/web/cluster/root.example.com/databases');
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
  });
});
