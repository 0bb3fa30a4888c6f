import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { AccessRequestJson } from '@postern/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageLocation } from '../../lib/pageLocation';
import { jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { approvedRequest, pendingRequest, reviewableRequest } from './fixtures';
import { RequestPage } from './RequestPage';
import { renewUrl, requestsUrl, stubRequestsServer } from './testServer';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function setup(
  one: AccessRequestJson,
  respond?: Parameters<typeof stubRequestsServer>[0],
  acl = aclWith({ accessRequests: 'all' }),
) {
  const server = stubRequestsServer(respond, one);
  const view = renderPage(<RequestPage />, {
    path: '/web/requests/:requestId',
    url: `/web/requests/${one.id}`,
    routes: [
      { path: '/web/requests', element: <p>the list</p> },
      { path: '/web/locks/new', element: <p>the new lock form</p> },
    ],
    context: userContextFixture(acl, { userName: 'alice' }),
  });
  return { ...server, ...view, user: userEvent.setup() };
}

describe('RequestPage', () => {
  it('shows everything about the request and its reviews', async () => {
    setup(approvedRequest);
    const details = await screen.findByRole('table', { name: 'Request details' });
    const row = (label: string) =>
      within(details).getByRole('rowheader', { name: label }).closest('tr') as HTMLElement;
    expect(within(row('ID')).getByText(approvedRequest.id)).toBeTruthy();
    expect(within(row('Resources')).getByText('node: db-1')).toBeTruthy();
    expect(within(row('Reason')).getByText('deploy hotfix')).toBeTruthy();
    expect(within(row('Decision')).getByText('ok for today')).toBeTruthy();
    expect(within(row('Needs')).getByText('default: 1 approval, 1 denial')).toBeTruthy();
    const reviews = screen.getByRole('region', { name: 'Reviews' });
    expect(within(reviews).getByText('bob')).toBeTruthy();
    expect(within(reviews).getByText('APPROVED')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it('lets the owner of an approved request assume its roles', async () => {
    const assign = vi.spyOn(pageLocation, 'assign').mockImplementation(() => undefined);
    const { mutations, user } = setup(approvedRequest);
    await user.click(await screen.findByRole('button', { name: 'Assume roles' }));
    await waitFor(() => expect(assign).toHaveBeenCalled());
    expect(mutations()).toEqual([['POST', renewUrl, { requestId: approvedRequest.id }]]);
  });

  it('lets a reviewer approve with a comment', async () => {
    const reviewsUrl = `${requestsUrl}/${reviewableRequest.id}/reviews`;
    const { mutations, user } = setup(reviewableRequest, (method, url) =>
      method === 'POST' && url === reviewsUrl
        ? jsonResponse({ ...reviewableRequest, state: 'APPROVED', reviewable: false })
        : undefined,
    );
    expect(await screen.findByText('No reviews yet.')).toBeTruthy();
    await user.type(screen.getByRole('textbox', { name: 'Comment' }), 'fine by me');
    await user.click(screen.getByRole('button', { name: 'Approve' }));
    await waitFor(() =>
      expect(mutations()).toEqual([
        ['POST', reviewsUrl, { state: 'APPROVED', reason: 'fine by me' }],
      ]),
    );
  });

  it('lets the owner delete a pending request', async () => {
    const { mutations, router, user } = setup(pendingRequest);
    await user.click(await screen.findByRole('button', { name: 'Delete request' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Request' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/web/requests'));
    expect(mutations()).toEqual([['DELETE', `${requestsUrl}/${pendingRequest.id}`, {}]]);
  });

  it('denies with the reason given', async () => {
    const { mutations, user } = setup(reviewableRequest);
    await user.type(await screen.findByRole('textbox', { name: 'Comment' }), 'not now');
    await user.click(screen.getByRole('button', { name: 'Deny' }));
    await waitFor(() => expect(mutations()).toHaveLength(1));
    expect(mutations()[0]?.[2]).toEqual({ state: 'DENIED', reason: 'not now' });
  });

  it('offers an admin who may create locks to lock an approved request, naming it', async () => {
    const acl = aclWith({ accessRequests: 'all', lock: 'all' });
    const { router, user } = setup(approvedRequest, undefined, acl);
    await user.click(await screen.findByRole('link', { name: 'Lock request' }));
    expect(router.state.location.pathname).toBe('/web/locks/new');
    const search = new URLSearchParams(router.state.location.search);
    expect(Object.fromEntries(search)).toEqual({
      kind: 'access_request',
      name: approvedRequest.id,
    });
  });

  it('does not offer a lock to a user who may not create one', async () => {
    setup(approvedRequest);
    await screen.findByRole('table', { name: 'Request details' });
    expect(screen.queryByRole('link', { name: 'Lock request' })).toBeNull();
  });
});
