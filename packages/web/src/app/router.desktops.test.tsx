import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { desktopFixtures, desktopPage } from '../features/desktops/fixtures';
import { json, renderApp, serverData, signIn } from '../test/routerHarness';
import { presetAcls, userContextFixture } from '../test/userContexts';

afterEach(() => vi.unstubAllGlobals());

describe('desktops', () => {
  const desktopsUrl = '/v1/webapi/sites/root.example.com/desktops?limit=15';

  it('/web/cluster/:clusterId/desktops lists desktops for a user who may list desktops', async () => {
    signIn();
    renderApp(
      '/web/cluster/root.example.com/desktops',
      (url) => (url === desktopsUrl ? json(desktopPage(desktopFixtures)) : serverData(url)),
      userContextFixture(presetAcls.access),
    );
    expect(await screen.findByRole('heading', { name: 'Desktops', level: 2 })).toBeTruthy();
    expect(await screen.findByText('build-box')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Desktops' }).getAttribute('href')).toBe(
      '/web/cluster/root.example.com/desktops',
    );
    await waitFor(() => expect(document.title).toBe('root.example.com • Desktops'));
  });

  it('/web/cluster/:clusterId/desktops shows Access Denied without desktops list', async () => {
    signIn();
    renderApp('/web/cluster/root.example.com/desktops');
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
  });
});
