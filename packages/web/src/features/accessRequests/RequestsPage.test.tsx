import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readStoredToken } from '../../api/credentials';
import { pageLocation } from '../../lib/pageLocation';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { approvedRequest, pendingRequest, reviewableRequest } from './fixtures';
import { RequestsPage } from './RequestsPage';
import { renewUrl, requestsUrl, stubRequestsServer } from './testServer';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const alice = userContextFixture(aclWith({ accessRequests: 'all' }), { userName: 'alice' });
const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;

function setup() {
  const server = stubRequestsServer();
  const view = renderPage(<RequestsPage />, { path: '/web/requests', context: alice });
  return { ...server, ...view, user: userEvent.setup() };
}

describe('RequestsPage', () => {
  it('lists my requests: state, what was asked, reason, reviewers, dates and actions', async () => {
    const { calls } = setup();
    expect(await screen.findByText('roles: dba')).toBeTruthy();
    expect(calls[0]?.[1]).toBe(`${requestsUrl}?scope=mine`);
    const pending = rowOf('roles: dba');
    expect(within(pending).getByText('PENDING')).toBeTruthy();
    expect(within(pending).getByText('rotate the replica')).toBeTruthy();
    expect(within(pending).getByText('suggested: bob')).toBeTruthy();
    expect(within(pending).getByRole('button', { name: 'Delete' })).toBeTruthy();
    expect(within(pending).queryByRole('button', { name: 'Assume' })).toBeNull();
    const approved = rowOf('node: db-1');
    expect(within(approved).getByText('APPROVED')).toBeTruthy();
    expect(within(approved).getByText('bob (approved)')).toBeTruthy();
    expect(within(approved).queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(
      within(approved)
        .getByRole('link', { name: `View request ${approvedRequest.id}` })
        .getAttribute('href'),
    ).toBe(`/web/requests/${approvedRequest.id}`);
    expect(screen.getByRole('link', { name: 'New Access Request' }).getAttribute('href')).toBe(
      '/web/requests/new',
    );
  });

  it('To review lists scope=review, with Review leading to the request', async () => {
    const { calls, router, user } = setup();
    await screen.findByText('roles: dba');
    await user.click(screen.getByRole('tab', { name: 'To review' }));
    expect(await screen.findByText('carol')).toBeTruthy();
    expect(calls.at(-1)?.[1]).toBe(`${requestsUrl}?scope=review`);
    expect(router.state.location.search).toBe('?tab=review');
    expect(
      screen
        .getByRole('link', { name: `Review request ${reviewableRequest.id}` })
        .getAttribute('href'),
    ).toBe(`/web/requests/${reviewableRequest.id}`);
  });

  it('Assume renews the session with the request id, stores the token and reloads', async () => {
    const assign = vi.spyOn(pageLocation, 'assign').mockImplementation(() => undefined);
    const { mutations, user } = setup();
    await screen.findByText('node: db-1');
    await user.click(within(rowOf('node: db-1')).getByRole('button', { name: 'Assume' }));
    await waitFor(() => expect(assign).toHaveBeenCalled());
    expect(mutations()).toEqual([['POST', renewUrl, { requestId: approvedRequest.id }]]);
    expect(readStoredToken()?.accessToken).toBe('tok-assumed');
  });

  it('deletes my pending request after a confirmation', async () => {
    const { mutations, user } = setup();
    await screen.findByText('roles: dba');
    await user.click(within(rowOf('roles: dba')).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Request' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(mutations()).toEqual([['DELETE', `${requestsUrl}/${pendingRequest.id}`, {}]]);
  });

  it('offers no New Access Request without accessRequests create', async () => {
    stubRequestsServer();
    renderPage(<RequestsPage />, {
      context: userContextFixture(aclWith({ accessRequests: ['list', 'read'] })),
    });
    await screen.findByText('roles: dba');
    expect(screen.queryByRole('link', { name: 'New Access Request' })).toBeNull();
  });
});
