import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, renderApp, serverData, signIn } from '../../test/routerHarness';
import { switchedClusterPath } from './ClusterSwitcher';
import { clusterFixtures } from './fixtures';

afterEach(() => vi.unstubAllGlobals());

describe('switchedClusterPath', () => {
  it("opens the same list page of the other cluster, dropping what names the first one's things", () => {
    expect(switchedClusterPath('/web/cluster/root/nodes', 'root', 'leaf')).toBe(
      '/web/cluster/leaf/nodes',
    );
    expect(switchedClusterPath('/web/cluster/root/console/node/abc/root', 'root', 'leaf')).toBe(
      '/web/cluster/leaf/console',
    );
    expect(switchedClusterPath('/web/account', 'root', 'leaf b')).toBe('/web/cluster/leaf%20b/');
  });
});

describe('the cluster switcher in the top bar', () => {
  it('with a leaf cluster, picks it and opens the same page there', async () => {
    signIn();
    const router = renderApp('/web/cluster/root.example.com/sessions');
    const picker = await screen.findByRole('combobox', { name: 'Cluster' });
    expect((picker as HTMLInputElement).value).toBe('root.example.com');
    const user = userEvent.setup();
    await user.click(picker);
    await user.click(await screen.findByRole('option', { name: 'leaf-a', hidden: true }));
    await waitFor(() =>
      expect(router.state.location.pathname).toBe('/web/cluster/leaf-a/sessions'),
    );
  });

  it('alone, shows just the cluster name', async () => {
    signIn();
    const only = clusterFixtures.filter((c) => c.name === 'root.example.com');
    renderApp('/web/cluster/root.example.com/sessions', (url) =>
      url === '/v1/webapi/sites' ? json(only) : serverData(url),
    );
    expect(await screen.findAllByText('root.example.com')).not.toHaveLength(0);
    expect(screen.queryByRole('combobox', { name: 'Cluster' })).toBeNull();
  });
});
