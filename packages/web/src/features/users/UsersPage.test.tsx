import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { roleFixtures } from '../roles/fixtures';
import { inviteTokenFixture, userFixtures } from './fixtures';
import { UsersPage } from './UsersPage';
import { userTokenLink } from './usersApi';

type Route = (method: string, url: string, body: unknown) => Response | undefined;

const created = {
  name: 'carol',
  roles: ['dev'],
  authType: 'local',
  isLocal: true,
  traits: {
    logins: ['carol'],
    databaseUsers: [],
    databaseNames: [],
    kubeUsers: [],
    kubeGroups: [],
    windowsLogins: [],
    awsRoleArns: [],
  },
};

function setup(
  route: Route = () => undefined,
  acl = aclWith({ users: 'all', roles: 'all' }),
  url = '/',
) {
  const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const answer = route(method, url, body);
    if (answer) return answer;
    if (url === '/v1/webapi/users' && method === 'GET') return jsonResponse(userFixtures);
    if (url === '/v1/webapi/roles' && method === 'GET') return jsonResponse(roleFixtures);
    if (url === '/v1/webapi/users' && method === 'POST') return jsonResponse(created);
    if (url === '/v1/webapi/users' && method === 'PUT') return jsonResponse(created);
    if (url === '/v1/webapi/users/password/token') {
      return jsonResponse({ ...inviteTokenFixture, user: body.name, type: body.type });
    }
    return jsonResponse({ message: 'ok' });
  });
  vi.stubGlobal('fetch', fetchStub);
  const { router } = renderPage(<UsersPage />, { context: userContextFixture(acl), url });
  const calls = (method: string, url?: string) =>
    fetchStub.mock.calls
      .filter(([u, init]) => (init?.method ?? 'GET') === method && (!url || u === url))
      .map(([u, init]) => [u, JSON.parse(String(init?.body))]);
  return { fetchStub, calls, router, user: userEvent.setup() };
}

/** Picks an option of an open Mantine combobox (jsdom hides dropdowns: no layout). */
async function pick(user: ReturnType<typeof userEvent.setup>, input: HTMLElement, option: string) {
  await user.click(input);
  await user.click(await screen.findByRole('option', { name: option, hidden: true }));
}

async function openRowAction(
  user: ReturnType<typeof userEvent.setup>,
  name: string,
  action: string,
) {
  const row = (await screen.findByRole('cell', { name })).closest('tr') as HTMLElement;
  await user.click(within(row).getByRole('button', { name: 'Options' }));
  await user.click(await screen.findByRole('menuitem', { name: action, hidden: true }));
}

afterEach(() => vi.unstubAllGlobals());

describe('UsersPage', () => {
  it('creates a user with roles and traits, then shows the invite link', async () => {
    const { calls, user } = setup();
    await user.click(await screen.findByRole('button', { name: 'Create User' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create User' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Username' }), 'carol');
    await pick(user, within(dialog).getByRole('combobox', { name: 'Roles' }), 'dev');
    await user.type(within(dialog).getByRole('combobox', { name: 'Logins' }), 'carol{Enter}');
    await user.type(
      within(dialog).getByRole('combobox', { name: 'Kubernetes Groups' }),
      'viewers,devs{Enter}',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));

    const link = await screen.findByRole('dialog', { name: 'Invite link' });
    expect(within(link).getByText(/User/).textContent).toBe('User carol was created.');
    const url = within(link).getByRole('textbox', { name: 'Link to share' }) as HTMLInputElement;
    expect(url.value).toBe(`${window.location.origin}/web/invite/inv-123`);
    expect(within(link).getByRole('button', { name: 'Copy' })).toBeTruthy();
    expect(within(link).getByText(/It expires at 2030-01-02 03:04:05/)).toBeTruthy();

    expect(calls('POST', '/v1/webapi/users')).toEqual([
      [
        '/v1/webapi/users',
        {
          name: 'carol',
          roles: ['dev'],
          traits: {
            logins: ['carol'],
            databaseUsers: [],
            databaseNames: [],
            kubeUsers: [],
            kubeGroups: ['viewers', 'devs'],
            windowsLogins: [],
            awsRoleArns: [],
          },
        },
      ],
    ]);
    expect(calls('POST', '/v1/webapi/users/password/token')).toEqual([
      ['/v1/webapi/users/password/token', { name: 'carol', type: 'invite' }],
    ]);
    await user.click(within(link).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('checks the form before sending', async () => {
    const { calls, user } = setup();
    await user.click(await screen.findByRole('button', { name: 'Create User' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create User' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Username' }), 'bad name');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(
      within(dialog).getByText('Username may hold only letters, digits and @ . _ + -'),
    ).toBeTruthy();
    expect(within(dialog).getByText('Give the user at least one role')).toBeTruthy();
    expect(calls('POST')).toEqual([]);
  });

  it('shows the server’s refusal in the dialog', async () => {
    const { user } = setup((method, url) =>
      method === 'POST' && url === '/v1/webapi/users'
        ? errorResponse(403, 'access denied: you cannot grant the role editor')
        : undefined,
    );
    await user.click(await screen.findByRole('button', { name: 'Create User' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create User' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Username' }), 'carol');
    await pick(user, within(dialog).getByRole('combobox', { name: 'Roles' }), 'editor');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    const alert = await within(dialog).findByRole('alert');
    expect(within(alert).getByText('access denied: you cannot grant the role editor')).toBeTruthy();
    expect(screen.queryByRole('dialog', { name: 'Invite link' })).toBeNull();
  });

  it('takes roles as free text when the user cannot list roles', async () => {
    const { fetchStub, calls, user } = setup(undefined, aclWith({ users: 'all' }));
    await user.click(await screen.findByRole('button', { name: 'Create User' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create User' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Username' }), 'carol');
    await user.type(within(dialog).getByRole('combobox', { name: 'Roles' }), 'dev{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    await screen.findByRole('dialog', { name: 'Invite link' });
    expect(calls('POST', '/v1/webapi/users')[0]?.[1]).toMatchObject({ roles: ['dev'] });
    expect(fetchStub.mock.calls.some(([url]) => url === '/v1/webapi/roles')).toBe(false);
  });

  it('edits roles and traits with PUT', async () => {
    const { calls, user } = setup();
    await openRowAction(user, 'alice', 'Edit');
    const dialog = await screen.findByRole('dialog', { name: 'Edit User alice' });
    const name = within(dialog).getByRole('textbox', { name: 'Username' }) as HTMLInputElement;
    expect(name.value).toBe('alice');
    expect(name.disabled).toBe(true);
    await pick(user, within(dialog).getByRole('combobox', { name: 'Roles' }), 'dev');
    await user.type(
      within(dialog).getByRole('combobox', { name: 'Windows Logins' }),
      'Admin{Enter}',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls('PUT')).toEqual([
      [
        '/v1/webapi/users',
        {
          name: 'alice',
          roles: ['access', 'editor', 'dev'],
          traits: {
            logins: ['alice', 'root'],
            databaseUsers: [],
            databaseNames: [],
            kubeUsers: [],
            kubeGroups: ['viewers'],
            windowsLogins: ['Admin'],
            awsRoleArns: [],
          },
        },
      ],
    ]);
  });

  it('resets a password after a confirmation and shows the reset link', async () => {
    const { calls, user } = setup();
    await openRowAction(user, 'alice', 'Reset Password');
    const confirm = await screen.findByRole('dialog', { name: 'Reset Password' });
    await user.click(within(confirm).getByRole('button', { name: 'Create Reset Link' }));
    const link = await screen.findByRole('dialog', { name: 'Password reset link' });
    const url = within(link).getByRole('textbox', { name: 'Link to share' }) as HTMLInputElement;
    expect(url.value).toBe(`${window.location.origin}/web/reset/inv-123`);
    expect(calls('POST', '/v1/webapi/users/password/token')).toEqual([
      ['/v1/webapi/users/password/token', { name: 'alice', type: 'password' }],
    ]);
  });

  it('deletes a user after a confirmation', async () => {
    const { fetchStub, user } = setup();
    await openRowAction(user, 'bob', 'Delete');
    const dialog = await screen.findByRole('dialog', { name: 'Delete User' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fetchStub).toHaveBeenCalledWith(
      '/v1/webapi/users/bob',
      expect.objectContaining({ method: 'DELETE' }),
    );
  });
});

describe('UsersPage opened from a link to one user (?edit=NAME)', () => {
  it('opens that user’s edit dialog, then drops the query', async () => {
    const { router, calls, user } = setup(undefined, undefined, '/?edit=alice');
    const dialog = await screen.findByRole('dialog', { name: 'Edit User alice' });
    await waitFor(() => expect(router.state.location.search).toBe(''));
    // Saving closes it for good: the query is gone, so the fresh list does not open it again.
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Edit User alice' })).toBeNull(),
    );
    expect(calls('PUT', '/v1/webapi/users')).toHaveLength(1);
  });

  it('says so when there is no such user', async () => {
    const { router } = setup(undefined, undefined, '/?edit=nobody');
    expect(await screen.findByText('There is no user named "nobody".')).toBeTruthy();
    expect(screen.queryByRole('dialog', { name: /Edit User/ })).toBeNull();
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('opens nothing for an SSO user, whose logins come from the identity provider', async () => {
    setup(undefined, undefined, '/?edit=bob');
    expect(await screen.findByText(/bob signs in with single sign-on/)).toBeTruthy();
    expect(screen.queryByRole('dialog', { name: /Edit User/ })).toBeNull();
  });

  it('opens nothing for a viewer who may not edit users', async () => {
    setup(undefined, aclWith({ users: ['list', 'read'], roles: 'all' }), '/?edit=alice');
    expect(await screen.findByText('You may not edit users.')).toBeTruthy();
    expect(screen.queryByRole('dialog', { name: /Edit User/ })).toBeNull();
  });
});

describe('userTokenLink', () => {
  it('builds invite and reset links on the given origin', () => {
    expect(userTokenLink(inviteTokenFixture, 'https://p.example.com')).toBe(
      'https://p.example.com/web/invite/inv-123',
    );
    expect(
      userTokenLink({ ...inviteTokenFixture, type: 'password' }, 'https://p.example.com'),
    ).toBe('https://p.example.com/web/reset/inv-123');
  });
});
