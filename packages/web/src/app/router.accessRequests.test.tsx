import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { myRequestFixtures, pendingRequest } from '../features/accessRequests/fixtures';
import { integrationFixtures } from '../features/integrations/fixtures';
import { json, renderApp, serverData, signIn } from '../test/routerHarness';
import { aclWith, presetAcls, userContextFixture } from '../test/userContexts';

afterEach(() => vi.unstubAllGlobals());

const requestsUrl = '/v1/webapi/sites/root.example.com/accessrequests';
const data = (url: string) => {
  if (url === `${requestsUrl}?scope=mine`) return json({ items: myRequestFixtures });
  if (url === `${requestsUrl}/${pendingRequest.id}`) return json(pendingRequest);
  if (url === '/v1/webapi/sites/root.example.com/integrations') {
    return json({ items: integrationFixtures });
  }
  return serverData(url);
};
const requester = (overrides = {}) =>
  userContextFixture(aclWith({ accessRequests: ['list', 'read', 'create'] }), {
    userName: 'alice',
    accessCapabilities: { requestableRoles: ['dba'], suggestedReviewers: [] },
    ...overrides,
  });

describe('access request routes', () => {
  it('/web/requests lists requests, and Access Requests is in the Resources nav', async () => {
    signIn();
    renderApp('/web/requests', data, requester());
    expect(await screen.findByRole('heading', { name: 'Access Requests', level: 2 })).toBeTruthy();
    expect(await screen.findByText('roles: dba')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Access Requests' }).getAttribute('href')).toBe(
      '/web/requests',
    );
    await waitFor(() => expect(document.title).toBe('Access Requests'));
  });

  it('/web/requests/new is the form', async () => {
    signIn();
    renderApp('/web/requests/new', data, requester());
    expect(
      await screen.findByRole('heading', { name: 'New Access Request', level: 2 }),
    ).toBeTruthy();
    expect(screen.getByRole('checkbox', { name: 'dba' })).toBeTruthy();
  });

  it('/web/requests/:requestId shows the request', async () => {
    signIn();
    renderApp(`/web/requests/${pendingRequest.id}`, data, requester());
    expect(await screen.findByRole('table', { name: 'Request details' })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('Access Request'));
  });

  it('needs accessRequests list, and create for a new request', async () => {
    signIn();
    renderApp('/web/requests', data);
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
  });

  it('New Access Request needs accessRequests create', async () => {
    signIn();
    renderApp(
      '/web/requests/new',
      data,
      userContextFixture(aclWith({ accessRequests: ['list', 'read'] })),
    );
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
  });

  it('request_access always: /web (after sign-in) and other pages go to New Access Request', async () => {
    signIn();
    const strategy = { accessStrategy: { type: 'always' as const, prompt: 'Ticket?' } };
    const router = renderApp('/web', data, requester(strategy));
    expect(
      await screen.findByRole('heading', { name: 'New Access Request', level: 2 }),
    ).toBeTruthy();
    expect(router.state.location.pathname).toBe('/web/requests/new');
    expect(screen.getByRole('textbox', { name: 'Reason' }).getAttribute('placeholder')).toBe(
      'Ticket?',
    );
    await router.navigate('/web/users');
    await waitFor(() => expect(router.state.location.pathname).toBe('/web/requests/new'));
    await router.navigate('/web/requests');
    expect(await screen.findByRole('heading', { name: 'Access Requests', level: 2 })).toBeTruthy();
  });

  it('request_access always with a request assumed: the pages open, the top bar says so', async () => {
    signIn();
    const context = requester({
      accessStrategy: { type: 'always', prompt: '' },
      accessRequestId: pendingRequest.id,
      assumedRoles: ['dba'],
      accessRequestExpires: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const router = renderApp('/web/requests', data, context);
    expect(await screen.findByRole('heading', { name: 'Access Requests', level: 2 })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/web/requests');
    expect(screen.getByText(/Assumed: dba · 59:5\d/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Drop' })).toBeTruthy();
  });
});

describe('integration routes', () => {
  it('/web/integrations lists integrations under Management › Access', async () => {
    signIn();
    renderApp('/web/integrations', data);
    expect(
      await screen.findByRole('heading', { name: 'Manage Integrations', level: 2 }),
    ).toBeTruthy();
    expect(await screen.findByText('slack-ops')).toBeTruthy();
    const access = within(screen.getByRole('navigation', { name: 'Main navigation' })).getByRole(
      'group',
      { name: 'Access' },
    );
    expect(within(access).getByRole('link', { name: 'Enroll New Integration' })).toBeTruthy();
  });

  it('/web/integrations/new/:type? shows the tiles, or the type’s form', async () => {
    signIn();
    renderApp('/web/integrations/new/slack', data);
    expect(await screen.findByRole('heading', { name: 'Slack', level: 3 })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('Enroll New Integration'));
  });

  it('without integrations list, Manage Integrations is Access Denied', async () => {
    signIn();
    renderApp('/web/integrations', data, userContextFixture(presetAcls.access));
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
  });
});
