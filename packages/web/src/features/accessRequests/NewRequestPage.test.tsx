import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserContext } from '@postern/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { pendingRequest } from './fixtures';
import { NewRequestPage } from './NewRequestPage';
import { resourceCart } from './resourceCart';
import { requestsUrl, stubRequestsServer } from './testServer';

afterEach(() => {
  vi.unstubAllGlobals();
  resourceCart().clear();
});

function setup(
  overrides: Partial<UserContext> = {},
  respond?: (method: string, url: string) => Response | undefined,
) {
  const server = stubRequestsServer((method, url) =>
    method === 'POST' && url === requestsUrl
      ? (respond?.(method, url) ?? jsonResponse(pendingRequest))
      : undefined,
  );
  const context = userContextFixture(aclWith({ accessRequests: 'all' }), {
    userName: 'alice',
    accessCapabilities: { requestableRoles: ['dba', 'auditor'], suggestedReviewers: ['bob'] },
    ...overrides,
  });
  const view = renderPage(<NewRequestPage />, {
    path: '/web/requests/new',
    routes: [{ path: '/web/requests/:requestId', element: <p>the request screen</p> }],
    context,
  });
  return { ...server, ...view, user: userEvent.setup() };
}

describe('NewRequestPage', () => {
  it('offers the requestable roles and the cart, prefills reviewers, posts and opens the request', async () => {
    resourceCart().add({ kind: 'node', clusterName: 'localhost', name: 'id-1', title: 'db-1' });
    const { mutations, router, user } = setup();
    expect(await screen.findByRole('heading', { name: 'New Access Request' })).toBeTruthy();
    const resources = screen.getByRole('list', { name: 'Requested resources' });
    expect(within(resources).getByText('db-1')).toBeTruthy();
    expect(screen.getByRole('textbox', { name: /Suggested reviewers/ })).toHaveProperty(
      'value',
      'bob',
    );
    await user.click(screen.getByRole('checkbox', { name: 'dba' }));
    await user.type(screen.getByRole('textbox', { name: 'Reason' }), 'rotate the replica');
    await user.type(screen.getByRole('textbox', { name: /Suggested reviewers/ }), ', carol');
    await user.type(screen.getByRole('combobox', { name: /Duration/ }), '4h');
    await user.click(screen.getByRole('button', { name: 'Submit Request' }));
    await waitFor(() =>
      expect(router.state.location.pathname).toBe(`/web/requests/${pendingRequest.id}`),
    );
    expect(mutations()).toEqual([
      [
        'POST',
        requestsUrl,
        {
          roles: ['dba'],
          resources: [{ kind: 'node', clusterName: 'localhost', name: 'id-1' }],
          reason: 'rotate the replica',
          suggestedReviewers: ['bob', 'carol'],
          maxDuration: '4h',
        },
      ],
    ]);
    // The request holds the cart's resources now: the cart starts over.
    expect(resourceCart().items()).toEqual([]);
  });

  it('lists resources of every kind by kind, and requests them all', async () => {
    const picked = [
      { kind: 'node', clusterName: 'localhost', name: 'id-1', title: 'db-1' },
      { kind: 'app', clusterName: 'localhost', name: 'grafana', title: 'grafana' },
      { kind: 'db', clusterName: 'localhost', name: 'orders', title: 'orders' },
      { kind: 'kube_cluster', clusterName: 'localhost', name: 'prod', title: 'prod' },
      { kind: 'windows_desktop', clusterName: 'localhost', name: 'build-box', title: 'build-box' },
    ] as const;
    for (const item of picked) resourceCart().add(item);
    const { mutations, user } = setup();
    const resources = await screen.findByRole('list', { name: 'Requested resources' });
    expect(
      within(resources)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'Server: db-1',
      'Application: grafana',
      'Database: orders',
      'Kubernetes cluster: prod',
      'Desktop: build-box',
    ]);
    // A database and an app may share a name: the kind tells them apart.
    expect(within(resources).getByRole('button', { name: 'Remove Database orders' })).toBeTruthy();
    await user.type(screen.getByRole('textbox', { name: 'Reason' }), 'release day');
    await user.click(screen.getByRole('button', { name: 'Submit Request' }));
    await waitFor(() => expect(mutations()).toHaveLength(1));
    expect(mutations()[0]?.[2]).toMatchObject({
      roles: [],
      resources: picked.map(({ kind, clusterName, name }) => ({ kind, clusterName, name })),
    });
  });

  it('removes a resource from the cart', async () => {
    resourceCart().add({ kind: 'node', clusterName: 'localhost', name: 'id-1', title: 'db-1' });
    const { user } = setup();
    await user.click(await screen.findByRole('button', { name: 'Remove Server db-1' }));
    expect(screen.queryByRole('list', { name: 'Requested resources' })).toBeNull();
    expect(resourceCart().items()).toEqual([]);
  });

  it('requires a reason when the strategy is reason, showing its prompt', async () => {
    const { mutations, user } = setup({ accessStrategy: { type: 'reason', prompt: 'Ticket?' } });
    const reason = await screen.findByRole('textbox', { name: 'Reason' });
    expect(reason.getAttribute('placeholder')).toBe('Ticket?');
    expect(screen.getByText('Required by your roles')).toBeTruthy();
    await user.click(screen.getByRole('checkbox', { name: 'auditor' }));
    await user.click(screen.getByRole('button', { name: 'Submit Request' }));
    expect(await screen.findByText('Give a reason for this request')).toBeTruthy();
    expect(mutations()).toEqual([]);
  });

  it('asks for a role or a resource, and shows what the server refused', async () => {
    const { user } = setup({}, () => errorResponse(403, 'role "dba" may not be requested'));
    await screen.findByRole('heading', { name: 'New Access Request' });
    await user.click(screen.getByRole('button', { name: 'Submit Request' }));
    expect(
      await screen.findByText('Choose at least one role, or add resources to the request'),
    ).toBeTruthy();
    await user.click(screen.getByRole('checkbox', { name: 'dba' }));
    await user.click(screen.getByRole('button', { name: 'Submit Request' }));
    expect(await screen.findByText('role "dba" may not be requested')).toBeTruthy();
  });
});
