import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import { renderWithTheme } from '../../test/render';
import { kubeClusterFixtures } from './fixtures';
import { KubernetesView } from './KubernetesView';
import { kubeLoginCommand, makeKubeCluster, noFilters } from './makeKubeCluster';

function renderView(clusters = kubeClusterFixtures, leaf?: string) {
  const paging: ListPaging = { pageIndex: 0, canPrev: false, onPrev: vi.fn(), onNext: vi.fn() };
  const onFiltersChange = vi.fn();
  renderWithTheme(
    <MemoryRouter>
      <KubernetesView
        attempt={{
          status: 'success',
          data: {
            clusters: clusters.map(makeKubeCluster),
            startKey: '',
            totalCount: clusters.length,
          },
        }}
        onRetry={vi.fn()}
        filters={noFilters}
        onFiltersChange={onFiltersChange}
        paging={paging}
        pageSize={15}
        renderExec={(cluster) => <p>exec picker of {cluster.name}</p>}
        leaf={leaf}
      />
    </MemoryRouter>,
  );
  return { onFiltersChange };
}

const rowOf = (name: string) =>
  screen.getByText(name, { selector: 'p' }).closest('tr') as HTMLElement;

describe('KubernetesView', () => {
  it('shows name with status, description, the users and groups the roles allow, labels', () => {
    renderView();
    expect(screen.getByRole('heading', { name: 'Kubernetes', level: 2 })).toBeTruthy();
    expect(screen.getByRole('searchbox', { name: 'Search Kubernetes clusters' })).toBeTruthy();
    expect(screen.getByPlaceholderText('Search by name, description or label')).toBeTruthy();
    const prod = within(rowOf('prod'));
    expect(prod.getByText('Production')).toBeTruthy();
    expect(prod.getByText('Users: deployer')).toBeTruthy();
    expect(prod.getByText('Groups: developers, viewers')).toBeTruthy();
    expect(prod.getByText('env: prod')).toBeTruthy();
    expect(prod.getByText('region: eu')).toBeTruthy();
    expect(prod.queryByText('offline')).toBeNull();
    // No user named: requests run as the Postern user's own name; no group is none.
    const edge = within(rowOf('edge'));
    expect(edge.getByText('Users: your name')).toBeTruthy();
    expect(edge.getByText('Groups: none')).toBeTruthy();
    expect(edge.getByText('offline')).toBeTruthy();
  });

  it('a label narrows the list to clusters with it', async () => {
    const user = userEvent.setup();
    const { onFiltersChange } = renderView();
    await user.click(within(rowOf('prod')).getByText('env: prod'));
    expect(onFiltersChange).toHaveBeenCalledWith(
      expect.objectContaining({ query: 'labels["env"] == "prod"' }),
    );
  });

  it('Connect shows the login command to copy, kubectl’s next step, then Exec in browser', async () => {
    const user = userEvent.setup();
    renderView();
    // The picker asks the cluster for namespaces: it is not there until Connect opens.
    expect(screen.queryByText('exec picker of prod')).toBeNull();
    await user.click(within(rowOf('prod')).getByRole('button', { name: 'Connect to prod' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect to prod' });
    const command = within(dialog).getByLabelText('Login command');
    expect(command.textContent).toBe('postern kube login prod');
    expect(within(dialog).getByLabelText('Next step').textContent).toBe('kubectl get pods');
    await user.click(within(dialog).getByRole('button', { name: 'Copy command' }));
    expect(await navigator.clipboard.readText()).toBe('postern kube login prod');
    expect(within(dialog).getByRole('button', { name: 'Copied' })).toBeTruthy();
    expect(within(dialog).getByText('Exec in browser')).toBeTruthy();
    expect(within(dialog).getByText('exec picker of prod')).toBeTruthy();
    expect(kubeLoginCommand({ name: 'edge' })).toBe('postern kube login edge');
  });

  it('Connect on a trusted leaf’s cluster names the leaf with --cluster', async () => {
    const user = userEvent.setup();
    renderView(kubeClusterFixtures, 'lab');
    await user.click(within(rowOf('prod')).getByRole('button', { name: 'Connect to prod' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect to prod' });
    expect(within(dialog).getByLabelText('Login command').textContent).toBe(
      'postern kube login prod --cluster lab',
    );
  });

  it('shows how to add a cluster when there is none', () => {
    renderView([]);
    expect(screen.getByRole('heading', { name: 'No Kubernetes clusters yet' })).toBeTruthy();
    expect(screen.getByText(/kind: kube_cluster/).textContent).toContain(
      'server: https://k8s.internal:6443',
    );
    expect(screen.getByText('postern create -f kube.yaml')).toBeTruthy();
    expect(screen.getByText('kubernetes_clusters:')).toBeTruthy();
    expect(screen.getByText(/--kube NAME --kubeconfig FILE/)).toBeTruthy();
  });
});
