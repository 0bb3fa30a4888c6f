import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, presetAcls, userContextFixture } from '../../test/userContexts';
import { EnrollIntegrationPage } from './EnrollIntegrationPage';
import { integrationFixtures } from './fixtures';

const listUrl = '/v1/webapi/sites/localhost/integrations';

function setup(url = '/web/integrations/new', answer?: Response, acl = presetAcls.editor) {
  const stub = vi.fn(
    async (_url: string, _init?: RequestInit) => answer ?? jsonResponse(integrationFixtures[0]),
  );
  vi.stubGlobal('fetch', stub);
  const view = renderPage(<EnrollIntegrationPage />, {
    path: '/web/integrations/new/:type?',
    url,
    routes: [{ path: '/web/integrations', element: <p>the integrations list</p> }],
    context: userContextFixture(acl),
  });
  const posts = () =>
    stub.mock.calls.map(([u, init]) => [init?.method, u, JSON.parse(String(init?.body))]);
  return { ...view, posts, user: userEvent.setup() };
}

afterEach(() => vi.unstubAllGlobals());

describe('EnrollIntegrationPage', () => {
  it('shows one tile per type, and a tile opens its form', async () => {
    const { router, user } = setup();
    await screen.findByRole('heading', { name: 'Enroll New Integration' });
    const tiles = ['Generic webhook', 'Slack', 'Mattermost', 'Email (SMTP)'];
    for (const title of tiles) expect(screen.getByRole('link', { name: title })).toBeTruthy();
    await user.click(screen.getByRole('link', { name: 'Mattermost' }));
    expect(router.state.location.pathname).toBe('/web/integrations/new/mattermost');
    expect(await screen.findByRole('heading', { name: 'Mattermost' })).toBeTruthy();
    expect(screen.getByLabelText(/Webhook URL/)).toBeTruthy();
    expect(screen.getByRole('textbox', { name: /Channel/ })).toBeTruthy();
  });

  it('checks the form, then posts it and goes to the list', async () => {
    const { router, posts, user } = setup('/web/integrations/new/webhook');
    await screen.findByRole('heading', { name: 'Generic webhook' });
    await user.click(screen.getByRole('button', { name: 'Save Integration' }));
    expect(await screen.findByText('Enter a name')).toBeTruthy();
    expect(screen.getByText('Enter the webhook URL')).toBeTruthy();
    expect(posts()).toEqual([]);
    await user.type(screen.getByRole('textbox', { name: /Name/ }), 'audit-hook');
    await user.type(screen.getByRole('textbox', { name: /URL/ }), 'https://hooks.example.com/p');
    await user.type(screen.getByLabelText(/Signing secret/), 'a-very-long-signing-key');
    await user.click(screen.getByRole('button', { name: 'Save Integration' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/web/integrations'));
    expect(posts()).toEqual([
      [
        'POST',
        listUrl,
        {
          name: 'audit-hook',
          type: 'webhook',
          settings: {
            url: 'https://hooks.example.com/p',
            signingSecret: 'a-very-long-signing-key',
          },
        },
      ],
    ]);
  });

  it('the e-mail form has the SMTP fields, and the server’s refusal shows', async () => {
    const { user } = setup('/web/integrations/new/email', errorResponse(400, 'from: bad address'));
    await screen.findByRole('heading', { name: 'Email (SMTP)' });
    for (const label of [/SMTP host/, /Port/, /Username/, /^From/, /Fallback recipients/]) {
      expect(screen.getByRole('textbox', { name: label })).toBeTruthy();
    }
    expect(screen.getByRole('combobox', { name: 'Security' })).toBeTruthy();
    expect(screen.getByLabelText(/Password/)).toBeTruthy();
    await user.type(screen.getByRole('textbox', { name: /Name/ }), 'mail');
    await user.type(screen.getByRole('textbox', { name: /SMTP host/ }), 'smtp.example.com');
    await user.type(screen.getByRole('textbox', { name: /^From/ }), 'x@y');
    await user.click(screen.getByRole('button', { name: 'Save Integration' }));
    expect(await screen.findByText('from: bad address')).toBeTruthy();
  });

  it('says so for an unknown type, and warns a user who may only enroll plugins', async () => {
    setup('/web/integrations/new/pagerduty', undefined, aclWith({ plugins: ['create'] }));
    expect(await screen.findByText('Unknown integration type')).toBeTruthy();
    expect(screen.getByText(/do not allow creating integrations/)).toBeTruthy();
  });
});
