import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, presetAcls, userContextFixture } from '../../test/userContexts';
import { integrationFixtures } from './fixtures';
import { IntegrationsPage } from './IntegrationsPage';

const listUrl = '/v1/webapi/sites/localhost/integrations';

function setup(
  respond: (method: string, url: string) => Response | undefined = () => undefined,
  acl = presetAcls.editor,
) {
  const calls: [string, string, unknown][] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const method = init.method ?? 'GET';
      calls.push([method, url, init.body ? JSON.parse(String(init.body)) : undefined]);
      const answer = respond(method, url);
      if (answer) return answer;
      if (url === listUrl && method === 'GET') return jsonResponse({ items: integrationFixtures });
      if (method === 'PUT') return jsonResponse(integrationFixtures[0]);
      return jsonResponse({ ok: true });
    }),
  );
  renderPage(<IntegrationsPage />, { path: '/web/integrations', context: userContextFixture(acl) });
  const mutations = () => calls.filter(([method]) => method !== 'GET');
  return { mutations, user: userEvent.setup() };
}

const rowOf = (name: string) => screen.getByRole('cell', { name }).closest('tr') as HTMLElement;

afterEach(() => vi.unstubAllGlobals());

describe('IntegrationsPage', () => {
  it('lists type, status, last delivery and last error', async () => {
    setup();
    await screen.findByRole('cell', { name: 'slack-ops' });
    expect(
      within(rowOf('audit-hook'))
        .getAllByRole('cell')
        .map((c) => c.textContent)
        .slice(0, 3),
    ).toEqual(['audit-hook', 'Generic webhook', 'failing']);
    expect(within(rowOf('audit-hook')).getByText(/receiver answered 502/)).toBeTruthy();
    expect(within(rowOf('mail')).getByText('Never')).toBeTruthy();
    expect(within(rowOf('mail')).getByText('unused')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Enroll New Integration' }).getAttribute('href')).toBe(
      '/web/integrations/new',
    );
  });

  it('sends a test message and says how it went', async () => {
    const { mutations, user } = setup((method, url) =>
      method === 'POST' && url === `${listUrl}/audit-hook/test`
        ? errorResponse(502, 'receiver answered 502 Bad Gateway', 'bad_gateway')
        : undefined,
    );
    await screen.findByRole('cell', { name: 'slack-ops' });
    await user.click(within(rowOf('slack-ops')).getByRole('button', { name: 'Send test message' }));
    expect((await screen.findByRole('status')).textContent).toContain(
      'slack-ops delivered the test message.',
    );
    await user.click(
      within(rowOf('audit-hook')).getByRole('button', { name: 'Send test message' }),
    );
    const failed = await screen.findByRole('alert');
    expect(failed.textContent).toContain('audit-hook: receiver answered 502 Bad Gateway');
    expect(mutations().map(([m, u]) => [m, u])).toEqual([
      ['POST', `${listUrl}/slack-ops/test`],
      ['POST', `${listUrl}/audit-hook/test`],
    ]);
  });

  it('edits without prefilling secrets, and leaves them out to keep them', async () => {
    const { mutations, user } = setup();
    await screen.findByRole('cell', { name: 'slack-ops' });
    await user.click(within(rowOf('slack-ops')).getByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit slack-ops' });
    const url = within(dialog).getByLabelText(/Webhook URL/) as HTMLInputElement;
    expect(url.value).toBe('');
    expect(within(dialog).getByText('Stored. Leave empty to keep it.')).toBeTruthy();
    const channel = within(dialog).getByRole('textbox', { name: /Channel/ });
    expect(channel).toHaveProperty('value', '#access');
    await user.clear(channel);
    await user.type(channel, '#reviews');
    await user.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(mutations()).toEqual([
      [
        'PUT',
        `${listUrl}/slack-ops`,
        { name: 'slack-ops', type: 'slack', settings: { channel: '#reviews' } },
      ],
    ]);
  });

  it('deletes after a confirmation', async () => {
    const { mutations, user } = setup();
    await screen.findByRole('cell', { name: 'mail' });
    await user.click(within(rowOf('mail')).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Integration' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(mutations()).toEqual([['DELETE', `${listUrl}/mail`, {}]]);
  });

  it('offers only what the ACL allows', async () => {
    setup(undefined, aclWith({ integrations: ['list', 'read'] }));
    await screen.findByRole('cell', { name: 'mail' });
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Send test message' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Enroll New Integration' })).toBeNull();
  });
});
