import {
  apiPaths,
  internalResourceIdLabel,
  type JoinTokenJson,
  type JoinTokenListItem,
} from '@postern/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { formatDateTime } from '../../lib/format';
import { JoinTokensPage } from './JoinTokensPage';

afterEach(() => vi.unstubAllGlobals());

const minutes = (n: number) => new Date(Date.now() + n * 60_000).toISOString();

/** A live Node token, as the server lists it: never the secret. */
const listed = (): JoinTokenListItem => ({
  id: '3f2a9c1d7e5b',
  safeName: '••••a1b2',
  roles: ['Node', 'App'],
  method: 'token',
  // Half a minute over, so "in 25 minutes" holds while the test runs.
  expiry: minutes(25.5),
  suggestedLabels: [
    { name: 'env', value: 'prod' },
    { name: internalResourceIdLabel, value: 'b6d0c3f4-resource' },
  ],
  internalResourceId: 'b6d0c3f4-resource',
  createdAt: '2026-11-29T08:00:00.000Z',
  createdBy: 'alice',
  isStatic: false,
});

const secret = '0123456789abcdef0123456789abcdef';
const issued: JoinTokenJson = {
  id: secret,
  expiry: minutes(24 * 60 - 0.5),
  roles: ['Node', 'App'],
  suggestedLabels: [
    { name: 'env', value: 'prod' },
    { name: internalResourceIdLabel, value: 'c0ffee00-resource' },
  ],
  internalResourceId: 'c0ffee00-resource',
};

interface Call {
  url: string;
  method: string;
  body?: unknown;
}

/** The server as the page calls it; `items` is what each GET of the list answers. */
function stubServer(items: () => JoinTokenListItem[], create = () => jsonResponse(issued)) {
  const calls: Call[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const method = init.method ?? 'GET';
      calls.push({ url, method, body: init.body ? JSON.parse(String(init.body)) : undefined });
      if (method === 'GET' && url === apiPaths.joinTokens) return jsonResponse({ items: items() });
      if (method === 'POST' && url === apiPaths.joinToken) return create();
      return jsonResponse({ message: 'ok' });
    }),
  );
  const gets = () => calls.filter((c) => c.method === 'GET' && c.url === apiPaths.joinTokens);
  return { calls, gets };
}

const admin = () => userContextFixture(aclWith({ tokens: 'all' }));

async function openCreate() {
  const user = userEvent.setup();
  await user.click(await screen.findByRole('button', { name: 'Create Join Token' }));
  const dialog = await screen.findByRole('dialog', { name: 'Create Join Token' });
  return { user, dialog };
}

describe('JoinTokensPage', () => {
  it('lists live tokens by id, masked token, roles, labels, creator and expiry, never a secret', async () => {
    const token = listed();
    stubServer(() => [token]);
    renderPage(<JoinTokensPage />, { context: admin() });
    const table = await screen.findByRole('table', { name: 'Join tokens' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['ID', 'Token', 'Roles', 'Labels', 'Created by', 'Expires', 'Actions']);
    const row = within(table).getByText(token.id).closest('tr') as HTMLElement;
    expect(within(row).getByText('••••a1b2')).toBeTruthy();
    expect(within(row).getByText('Node')).toBeTruthy();
    expect(within(row).getByText('App')).toBeTruthy();
    expect(within(row).getByText('env: prod')).toBeTruthy();
    expect(within(row).getByText('alice')).toBeTruthy();
    const expires = within(row).getByText('in 25 minutes');
    expect(expires.getAttribute('title')).toBe(formatDateTime(new Date(token.expiry)));
    // The label the server adds to find the joined host is not the admin's to read.
    expect(document.body.textContent).not.toContain(internalResourceIdLabel);
    expect(document.body.textContent).not.toContain(token.internalResourceId);
  });

  it('deletes a token after a confirmation naming it, then reads the list again', async () => {
    let items = [listed()];
    const { calls, gets } = stubServer(() => items);
    renderPage(<JoinTokensPage />, { context: admin() });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete join token 3f2a9c1d7e5b' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Join Token' });
    expect(within(dialog).getByText('3f2a9c1d7e5b')).toBeTruthy();
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    items = [];
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([
      apiPaths.joinTokenById('3f2a9c1d7e5b'),
    ]);
    expect(await screen.findByText('No live join tokens')).toBeTruthy();
    expect(gets()).toHaveLength(2);
  });

  it('shows why a delete failed, in the dialog', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit = {}) =>
        init.method === 'DELETE'
          ? errorResponse(404, 'no such join token (it may have expired)', 'not_found')
          : jsonResponse({ items: [listed()] }),
      ),
    );
    renderPage(<JoinTokensPage />, { context: admin() });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete join token 3f2a9c1d7e5b' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Join Token' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain('no such join token (it may have expired)');
  });

  it('creates a token with roles, labels and a TTL, and shows it once with its commands', async () => {
    const { calls, gets } = stubServer(() => [listed()]);
    renderPage(<JoinTokensPage />, { context: admin() });
    const { user, dialog } = await openCreate();
    // Node is chosen already; App is added.
    await user.click(within(dialog).getByRole('combobox', { name: 'Roles' }));
    await user.click(await screen.findByRole('option', { name: 'App', hidden: true }));
    expect(screen.queryByRole('option', { name: 'Trusted_cluster', hidden: true })).toBeNull();
    await user.type(within(dialog).getByRole('combobox', { name: 'Labels' }), 'env=prod{Enter}');
    await user.click(within(dialog).getByRole('combobox', { name: 'Valid for' }));
    await user.click(await screen.findByRole('option', { name: '24 hours', hidden: true }));
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));

    const created = await screen.findByRole('dialog', { name: 'Join token created' });
    expect(calls.filter((c) => c.method === 'POST')).toEqual([
      {
        url: apiPaths.joinToken,
        method: 'POST',
        body: {
          roles: ['Node', 'App'],
          join_method: 'token',
          suggested_agent_matcher_labels: { env: 'prod' },
          ttl: '24h',
        },
      },
    ]);
    expect(within(created).getByLabelText('Join token').textContent).toBe(secret);
    expect(within(created).getByText(/It will not be shown again/)).toBeTruthy();
    expect(within(created).getByText(/Expires in 23 hours/)).toBeTruthy();
    const agent = within(created).getByLabelText('Agent command').textContent ?? '';
    // The test page is served over plain HTTP: the agent is given the proxy's URL.
    const origin = window.location.origin;
    expect(agent).toBe(
      `sudo postern agent --proxy ${origin} --token ${secret} --data-dir /var/lib/postern/agent`,
    );
    const openssh = within(created).getByLabelText('OpenSSH install command');
    expect(openssh.textContent).toBe(
      `curl -fsSL ${origin}/scripts/${secret}/install-node.sh | sudo bash`,
    );
    // An App token: the agent needs --app to serve one.
    expect(within(created).getByText('--app NAME=URI')).toBeTruthy();
    await user.click(within(created).getByRole('checkbox'));
    expect(within(created).getByLabelText('Agent command').textContent).toContain('--insecure');
    expect(openssh.textContent).toContain('curl -fsSLk');

    const before = gets().length;
    await user.click(within(created).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(gets().length).toBeGreaterThan(before));
    // Gone for good: the list never shows it.
    expect(document.body.textContent).not.toContain(secret);
  });

  it('a Node token alone: no agent flags to add; the defaults are Node and 30 minutes', async () => {
    const { calls } = stubServer(
      () => [],
      () => jsonResponse({ ...issued, roles: ['Node'], suggestedLabels: [] }),
    );
    renderPage(<JoinTokensPage />, { context: admin() });
    const { user, dialog } = await openCreate();
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    const created = await screen.findByRole('dialog', { name: 'Join token created' });
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      roles: ['Node'],
      join_method: 'token',
      suggested_agent_matcher_labels: {},
      ttl: '30m',
    });
    expect(within(created).getByLabelText('Agent command')).toBeTruthy();
    expect(within(created).getByLabelText('OpenSSH install command')).toBeTruthy();
    expect(within(created).queryByText(/to serve more/)).toBeNull();
  });

  it('checks labels and roles before sending, and shows the server’s refusal', async () => {
    const { calls } = stubServer(
      () => [],
      () => errorResponse(400, 'ttl: at most 30 days', 'bad_parameter'),
    );
    renderPage(<JoinTokensPage />, { context: admin() });
    const { user, dialog } = await openCreate();
    const roles = within(dialog).getByRole('combobox', { name: 'Roles' });
    await user.type(roles, '{Backspace}');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('name at least one role')).toBeTruthy();
    await user.click(roles);
    await user.click(await screen.findByRole('option', { name: 'Node', hidden: true }));

    const labels = within(dialog).getByRole('combobox', { name: 'Labels' });
    await user.type(labels, '=prod{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText(/has no label name/)).toBeTruthy();
    await user.type(labels, '{Backspace}env{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText(/'env' is not name=value/)).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    await user.type(labels, '{Backspace}env=prod{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain('ttl: at most 30 days');
    expect(screen.queryByRole('dialog', { name: 'Join token created' })).toBeNull();
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      roles: ['Node'],
      suggested_agent_matcher_labels: { env: 'prod' },
    });
  });

  it('says there are no live tokens, with a Create button in the empty state too', async () => {
    stubServer(() => []);
    renderPage(<JoinTokensPage />, { context: admin() });
    expect(await screen.findByText('No live join tokens')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Create Join Token' })).toHaveLength(2);
  });

  it('shows a list-only user the tokens but no Create or Delete', async () => {
    stubServer(() => [listed()]);
    renderPage(<JoinTokensPage />, { context: userContextFixture(aclWith({ tokens: ['list'] })) });
    await screen.findByText('3f2a9c1d7e5b');
    expect(screen.queryByRole('button', { name: 'Create Join Token' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Delete/ })).toBeNull();
    expect(screen.queryByRole('columnheader', { name: 'Actions' })).toBeNull();
  });

  it('shows a list-only user an empty list without Create', async () => {
    stubServer(() => []);
    renderPage(<JoinTokensPage />, { context: userContextFixture(aclWith({ tokens: ['list'] })) });
    expect(await screen.findByText('No live join tokens')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create Join Token' })).toBeNull();
  });

  it('shows why the list could not be read, with a retry', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => errorResponse(403, 'access denied to perform action "list" on "token"')),
    );
    renderPage(<JoinTokensPage />, { context: admin() });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('access denied to perform action "list" on "token"');
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
  });
});
