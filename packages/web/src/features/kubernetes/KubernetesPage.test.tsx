import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { clientConfigSchema, type UserContext } from '@postern/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { resourceCart } from '../accessRequests/resourceCart';
import {
  kubeClusterFixtures,
  kubeClusterPage,
  namespaceFixtures,
  shopPodFixtures,
} from './fixtures';
import { KubernetesPage } from './KubernetesPage';

// The Kubernetes page on a stubbed server: the list, and Exec in browser's picker in Connect.

afterEach(() => vi.unstubAllGlobals());

const resources = '/v1/webapi/sites/root/kubernetes/prod/resources';
const namespacesUrl = `${resources}?kind=namespace`;
const shopPodsUrl = `${resources}?kind=pod&kubeNamespace=shop`;

function setup(
  answer: (url: string) => Response | undefined = () => undefined,
  query = '',
  context?: UserContext,
) {
  const fetchStub = vi.fn(async (url: string) => {
    const answered = answer(url);
    if (answered) return answered;
    if (url.startsWith('/v1/webapi/sites/root/kubernetes?')) {
      return jsonResponse(kubeClusterPage(kubeClusterFixtures));
    }
    if (url === namespacesUrl) return jsonResponse(namespaceFixtures);
    if (url === shopPodsUrl) return jsonResponse(shopPodFixtures);
    if (url === `${resources}?kind=pod&kubeNamespace=default`) return jsonResponse({ items: [] });
    return errorResponse(404, 'not found', 'not_found');
  });
  vi.stubGlobal('fetch', fetchStub);
  renderPage(<KubernetesPage />, {
    path: '/web/cluster/:clusterId/kubernetes',
    url: `/web/cluster/root/kubernetes${query}`,
    context,
    // The cluster signed in to: its own clusters, not a trusted leaf's (no --cluster).
    config: clientConfigSchema.parse({ proxyCluster: 'root' }),
  });
  const urls = () => fetchStub.mock.calls.map(([url]) => url);
  return { urls, user: userEvent.setup() };
}

/** Picks an option of an open Mantine combobox (jsdom hides dropdowns: no layout). */
async function pick(user: ReturnType<typeof userEvent.setup>, input: HTMLElement, option: string) {
  await user.click(input);
  await user.click(await screen.findByRole('option', { name: option, hidden: true }));
}

async function openConnect(user: ReturnType<typeof userEvent.setup>, name: string) {
  await user.click(await screen.findByRole('button', { name: `Connect to ${name}` }));
  return screen.findByRole('dialog', { name: `Connect to ${name}` });
}

const field = (dialog: HTMLElement, label: string) =>
  within(dialog).getByLabelText(label, { selector: 'input' }) as HTMLInputElement;

describe('KubernetesPage', () => {
  it('asks for the list with the URL’s search and sort', async () => {
    const { urls } = setup(undefined, '?search=pro&sort=description:desc');
    expect(await screen.findByText('Production')).toBeTruthy();
    const url = new URL(urls()[0]!, 'https://proxy.example.com');
    expect(url.pathname).toBe('/v1/webapi/sites/root/kubernetes');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      limit: '15',
      search: 'pro',
      sort: 'description:desc',
    });
  });

  it('Exec in browser: namespaces, then pods, then containers, then the exec page’s link', async () => {
    const { urls, user } = setup();
    await screen.findByText('Production');
    // Nothing is asked of the cluster until Connect opens.
    expect(urls()).not.toContain(namespacesUrl);
    const dialog = await openConnect(user, 'prod');
    await waitFor(() => expect(urls()).toContain(namespacesUrl));
    expect(within(dialog).queryByLabelText('Pod', { selector: 'input' })).toBeNull();
    expect(within(dialog).queryByRole('link', { name: 'Open terminal' })).toBeNull();
    const closed = within(dialog).getByRole('button', { name: 'Open terminal' });
    expect(closed.hasAttribute('disabled')).toBe(true);
    expect(field(dialog, 'Command').value).toBe('/bin/sh');

    await waitFor(() => expect(field(dialog, 'Namespace').disabled).toBe(false));
    await pick(user, field(dialog, 'Namespace'), 'shop');
    await waitFor(() => expect(urls()).toContain(shopPodsUrl));
    await waitFor(() => expect(field(dialog, 'Pod').disabled).toBe(false));
    expect(within(dialog).queryByLabelText('Container', { selector: 'input' })).toBeNull();

    // The pod's first container is chosen for the user, as kubectl would.
    await pick(user, field(dialog, 'Pod'), 'web-7d4f9');
    expect(within(dialog).getByText('Status: Running')).toBeTruthy();
    expect(field(dialog, 'Container').value).toBe('nginx');
    const link = within(dialog).getByRole('link', { name: 'Open terminal' });
    expect(link.getAttribute('href')).toBe(
      '/web/cluster/root/kubernetes/prod/exec/shop/web-7d4f9/nginx?command=%2Fbin%2Fsh',
    );
    // A tab of its own, which cannot reach this one.
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');

    await pick(user, field(dialog, 'Container'), 'log-shipper');
    const command = field(dialog, 'Command');
    await user.clear(command);
    await user.type(command, 'bash -l');
    const href = () =>
      within(dialog).getByRole('link', { name: 'Open terminal' }).getAttribute('href');
    expect(href()).toBe(
      '/web/cluster/root/kubernetes/prod/exec/shop/web-7d4f9/log-shipper?command=bash+-l',
    );

    // Another pod: its own first container.
    await pick(user, field(dialog, 'Pod'), 'worker-0');
    expect(field(dialog, 'Container').value).toBe('worker');
    expect(href()).toBe(
      '/web/cluster/root/kubernetes/prod/exec/shop/worker-0/worker?command=bash+-l',
    );

    // Another namespace: the pod is to choose again.
    await pick(user, field(dialog, 'Namespace'), 'default');
    await waitFor(() =>
      expect(field(dialog, 'Pod').placeholder).toBe('No pods in default you may see'),
    );
    expect(field(dialog, 'Pod').value).toBe('');
    expect(within(dialog).queryByRole('link', { name: 'Open terminal' })).toBeNull();
  });

  it('shows the server’s reason in place of a list it refused, and the rest stays usable', async () => {
    const refusal = 'your roles do not allow list on pods in namespace shop';
    const { user } = setup((url) =>
      url === shopPodsUrl ? errorResponse(403, refusal) : undefined,
    );
    const dialog = await openConnect(user, 'prod');
    await waitFor(() => expect(field(dialog, 'Namespace').disabled).toBe(false));
    await pick(user, field(dialog, 'Namespace'), 'shop');
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toBe(`Could not list pods in shop: ${refusal}`);
    expect(within(dialog).getByLabelText('Login command').textContent).toBe(
      'postern kube login prod',
    );
    expect(within(dialog).getByRole('button', { name: 'Open terminal' })).toBeTruthy();
    // Another namespace may be open to the user.
    await pick(user, field(dialog, 'Namespace'), 'default');
    await waitFor(() => expect(within(dialog).queryByRole('alert')).toBeNull());
  });

  it('a refused namespace list says why where the namespaces would be', async () => {
    const { user } = setup((url) =>
      url === namespacesUrl
        ? errorResponse(403, 'the cluster refused: namespaces is forbidden')
        : undefined,
    );
    const dialog = await openConnect(user, 'prod');
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toBe(
      'Could not list namespaces: the cluster refused: namespaces is forbidden',
    );
    expect(within(dialog).queryByLabelText('Pod', { selector: 'input' })).toBeNull();
  });
});

describe('KubernetesPage and access requests', () => {
  afterEach(() => resourceCart().clear());

  const requester = (allowedSearchAsRoles: string[] = []) =>
    userContextFixture(
      aclWith({ kubeServers: ['list', 'read'], accessRequests: ['list', 'create'] }),
      { allowedSearchAsRoles },
    );

  it('puts clusters in the request cart beside Connect, and shows its count', async () => {
    const { user } = setup(undefined, '', requester());
    await user.click(await screen.findByRole('button', { name: 'Add prod to request' }));
    expect(resourceCart().items()).toEqual([
      { kind: 'kube_cluster', clusterName: 'root', name: 'prod', title: 'prod' },
    ]);
    expect(screen.getByRole('link', { name: 'Request access (1)' }).getAttribute('href')).toBe(
      '/web/requests/new',
    );
    expect(screen.getByRole('button', { name: 'Connect to prod' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Remove prod from request' }));
    expect(resourceCart().items()).toEqual([]);
    expect(screen.queryByRole('switch')).toBeNull();
  });

  it('lists with searchAsRoles=yes while the switch is on', async () => {
    const { urls, user } = setup(undefined, '', requester(['kube-access']));
    await screen.findByText('Production');
    expect(urls().at(-1)).not.toContain('searchAsRoles');
    await user.click(screen.getByRole('switch', { name: 'Search resources as requestable roles' }));
    await waitFor(() => expect(urls().at(-1)).toContain('searchAsRoles=yes'));
  });

  it('offers no request actions without accessRequests create', async () => {
    setup();
    await screen.findByText('Production');
    expect(screen.queryByRole('button', { name: /to request/ })).toBeNull();
    expect(screen.queryByRole('link', { name: /Request access/ })).toBeNull();
  });
});
