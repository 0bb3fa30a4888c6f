import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { kubeClusterFixtures, kubeClusterPage } from '../features/kubernetes/fixtures';
import { json, renderApp, serverData, signIn } from '../test/routerHarness';
import { presetAcls, userContextFixture } from '../test/userContexts';

afterEach(() => vi.unstubAllGlobals());

describe('kubernetes', () => {
  const kubernetesUrl = '/v1/webapi/sites/root.example.com/kubernetes?limit=15';

  it('/web/cluster/:clusterId/kubernetes lists clusters for a user who may list kube servers', async () => {
    signIn();
    renderApp(
      '/web/cluster/root.example.com/kubernetes',
      (url) =>
        url === kubernetesUrl ? json(kubeClusterPage(kubeClusterFixtures)) : serverData(url),
      userContextFixture(presetAcls.access),
    );
    expect(await screen.findByRole('heading', { name: 'Kubernetes', level: 2 })).toBeTruthy();
    expect(await screen.findByText('Production')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Kubernetes' }).getAttribute('href')).toBe(
      '/web/cluster/root.example.com/kubernetes',
    );
    await waitFor(() => expect(document.title).toBe('root.example.com • Kubernetes'));
  });

  it('/web/cluster/:clusterId/kubernetes shows Access Denied without kubeServers list', async () => {
    signIn();
    renderApp('/web/cluster/root.example.com/kubernetes');
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
  });
});
