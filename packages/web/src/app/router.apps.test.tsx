import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appFixtures, appPage } from '../features/apps/fixtures';
import { pageLocation } from '../lib/pageLocation';
import { json, renderApp, serverData, signIn } from '../test/routerHarness';
import { presetAcls, userContextFixture } from '../test/userContexts';

afterEach(() => vi.unstubAllGlobals());

describe('applications and the app launcher', () => {
  afterEach(() => vi.restoreAllMocks());

  const appsUrl = '/v1/webapi/sites/root.example.com/apps?limit=15';
  const launchPath = '/web/launch/grafana.example.com/root.example.com/grafana.example.com';

  it('/web/cluster/:clusterId/apps lists applications for a user who may list app servers', async () => {
    signIn();
    renderApp(
      '/web/cluster/root.example.com/apps',
      (url) => (url === appsUrl ? json(appPage(appFixtures)) : serverData(url)),
      userContextFixture(presetAcls.access),
    );
    expect(await screen.findByRole('heading', { name: 'Applications', level: 2 })).toBeTruthy();
    expect(await screen.findByText('grafana')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Applications' }).getAttribute('href')).toBe(
      '/web/cluster/root.example.com/apps',
    );
    await waitFor(() => expect(document.title).toBe('root.example.com • Applications'));
  });

  it('/web/cluster/:clusterId/apps shows Access Denied without appServers list', async () => {
    signIn();
    renderApp('/web/cluster/root.example.com/apps');
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
  });

  it('the launcher is a full page: no navigation, posts the session and leaves for the app', async () => {
    signIn();
    const replace = vi.spyOn(pageLocation, 'replace').mockImplementation(() => undefined);
    vi.spyOn(pageLocation, 'protocol').mockReturnValue('https:');
    const answer = {
      fqdn: 'grafana.example.com',
      redirectUrl: 'https://grafana.example.com/x-postern-auth?state=s1',
      value: 's1',
    };
    // An auditor may not list apps: the launcher does not ask, the server decides.
    renderApp(
      launchPath,
      (url) => (url === '/v1/webapi/sessions/app' ? json(answer) : serverData(url)),
      userContextFixture(presetAcls.auditor),
    );
    expect(await screen.findByText('Launching grafana.example.com…')).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Main navigation' })).toBeNull();
    await waitFor(() => expect(replace).toHaveBeenCalledWith(answer.redirectUrl));
  });

  it('the launcher without a session sends the browser to sign in and back', async () => {
    const assign = vi.spyOn(pageLocation, 'assign').mockImplementation(() => undefined);
    // Sent by the app's host, with where the visitor was going: that comes back too.
    const target = `${launchPath}?path=${encodeURIComponent('/d/abc?orgId=1')}`;
    renderApp(target);
    await waitFor(() =>
      expect(assign).toHaveBeenCalledWith(`/web/login?redirect_uri=${encodeURIComponent(target)}`),
    );
    expect(screen.queryByText(/Launching/)).toBeNull();
  });
});
