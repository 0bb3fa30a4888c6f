import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { desktopPage } from '../desktops/fixtures';
import { roleFixtures } from '../roles/fixtures';
import { userFixtures } from '../users/fixtures';
import { approvedRequest, pendingRequest } from '../accessRequests/fixtures';
import { lockFixtures } from './fixtures';
import { NewLockPage } from './NewLockPage';

const locksUrl = '/v1/webapi/sites/localhost/locks';
const desktopsUrl = '/v1/webapi/sites/localhost/desktops?';

function setup(
  respond: (method: string, url: string) => Response | undefined = () => undefined,
  acl = aclWith({ lock: 'all', users: ['list'], roles: ['list'], desktops: ['list'] }),
  url = '/web/locks/new',
) {
  const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const answer = respond(method, url);
    if (answer) return answer;
    if (url === '/v1/webapi/users') return jsonResponse(userFixtures);
    if (url === '/v1/webapi/roles') return jsonResponse(roleFixtures);
    if (url.startsWith(desktopsUrl)) return jsonResponse(desktopPage());
    if (url === locksUrl && method === 'PUT') return jsonResponse(lockFixtures[0]);
    return jsonResponse({ message: 'ok' });
  });
  vi.stubGlobal('fetch', fetchStub);
  const { router } = renderPage(<NewLockPage />, {
    path: '/web/locks/new',
    url,
    routes: [{ path: '/web/locks', element: <p>the locks list</p> }],
    context: userContextFixture(acl),
  });
  const puts = () =>
    fetchStub.mock.calls
      .filter(([, init]) => init?.method === 'PUT')
      .map(([url, init]) => [url, JSON.parse(String(init?.body))]);
  return { fetchStub, router, puts, user: userEvent.setup() };
}

/** The suggestions of an input: the options of its datalist. */
function optionsOf(input: HTMLElement): string[] {
  const list = document.getElementById(input.getAttribute('list') ?? '');
  return [...(list?.querySelectorAll('option') ?? [])].map((o) => o.value);
}

/** The labels a datalist shows beside its values. */
function labelsOf(input: HTMLElement): string[] {
  const list = document.getElementById(input.getAttribute('list') ?? '');
  return [...(list?.querySelectorAll('option') ?? [])].map((o) => o.label);
}

afterEach(() => vi.unstubAllGlobals());

describe('NewLockPage', () => {
  it('creates a lock with PUT on the proxy cluster and goes back to the list', async () => {
    const { router, puts, user } = setup();
    expect(await screen.findByRole('heading', { name: 'Create New Lock' })).toBeTruthy();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Target kind' }), 'role');
    await user.type(screen.getByRole('combobox', { name: 'Target name' }), 'dev');
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'audit freeze');
    const ttl = screen.getByRole('combobox', { name: 'TTL' });
    await user.clear(ttl);
    await user.type(ttl, '8h');
    await user.click(screen.getByRole('button', { name: 'Create Lock' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/web/locks'));
    expect(puts()).toEqual([
      [locksUrl, { targets: { role: 'dev' }, message: 'audit freeze', ttl: '8h' }],
    ]);
  });

  it('checks the form before sending', async () => {
    const { puts, user } = setup();
    await screen.findByRole('heading', { name: 'Create New Lock' });
    const ttl = screen.getByRole('combobox', { name: 'TTL' });
    await user.clear(ttl);
    await user.type(ttl, 'a while');
    await user.click(screen.getByRole('button', { name: 'Create Lock' }));
    expect(await screen.findByText('Enter the name of the target to lock')).toBeTruthy();
    expect(screen.getByText("Use a duration such as 30m, 8h or 1h30m, or 'never'")).toBeTruthy();
    expect(puts()).toEqual([]);
  });

  it('takes the expiry typed in 24-hour time, and refuses text that is no moment', async () => {
    const { puts, user } = setup();
    await screen.findByRole('heading', { name: 'Create New Lock' });
    await user.type(screen.getByRole('combobox', { name: 'Target name' }), 'dev');
    const expires = screen.getByRole('textbox', { name: /Expires at/ });
    // A plain text field: the browser's date-time field would follow the OS locale (AM/PM).
    expect(expires.getAttribute('type') ?? 'text').toBe('text');
    expect(expires.getAttribute('placeholder')).toBe('YYYY-MM-DD HH:mm');
    await user.type(expires, '2099-01-01 7pm');
    await user.click(screen.getByRole('button', { name: 'Create Lock' }));
    expect(screen.getAllByText('Use YYYY-MM-DD HH:mm (24-hour)').length).toBeGreaterThan(0);
    expect(puts()).toEqual([]);
    await user.clear(expires);
    await user.type(expires, '2099-01-01 19:00');
    await user.click(screen.getByRole('button', { name: 'Create Lock' }));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0]![1]).toMatchObject({ expires: new Date(2099, 0, 1, 19, 0).toISOString() });
  });

  it('offers only the target kinds Postern enforces', async () => {
    setup();
    await screen.findByRole('heading', { name: 'Create New Lock' });
    const kinds = within(screen.getByRole('combobox', { name: 'Target kind' }))
      .getAllByRole('option')
      .map((o) => [(o as HTMLOptionElement).value, o.textContent]);
    expect(kinds).toEqual([
      ['user', 'User'],
      ['role', 'Role'],
      ['login', 'Login'],
      ['node', 'Node'],
      ['windows_desktop', 'Desktop'],
      ['mfa_device', 'MFA Device'],
      ['access_request', 'Access Request'],
      ['bot_instance', 'Bot Instance'],
    ]);
  });

  it('offers user, role and desktop names as suggestions, and the TTL choices', async () => {
    const { user } = setup();
    await screen.findByRole('heading', { name: 'Create New Lock' });
    const name = screen.getByRole('combobox', { name: 'Target name' });
    await waitFor(() => expect(optionsOf(name)).toEqual(['alice', 'bob']));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Target kind' }), 'role');
    await waitFor(() => expect(optionsOf(name)).toEqual(['access', 'dev', 'editor']));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Target kind' }), 'node');
    expect(optionsOf(name)).toEqual([]);
    await user.selectOptions(
      screen.getByRole('combobox', { name: 'Target kind' }),
      'windows_desktop',
    );
    await waitFor(() => expect(optionsOf(name)).toEqual(['build-box', 'lab-7', 'win-11']));
    const ttl = screen.getByRole('combobox', { name: 'TTL' });
    expect(optionsOf(ttl)).toEqual(['1h', '8h', '24h', 'never']);
  });

  it('asks for no names it may not list, and takes free text', async () => {
    const { fetchStub, puts, user } = setup(undefined, aclWith({ lock: 'all' }));
    await screen.findByRole('heading', { name: 'Create New Lock' });
    await user.type(screen.getByRole('combobox', { name: 'Target name' }), 'mallory');
    await user.click(screen.getByRole('button', { name: 'Create Lock' }));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0]?.[1]).toEqual({ targets: { user: 'mallory' }, message: '' });
    const asked = fetchStub.mock.calls.map(([url]) => url);
    expect(asked).not.toContain('/v1/webapi/users');
    expect(asked).not.toContain('/v1/webapi/roles');
    expect(asked.some((url) => String(url).startsWith(desktopsUrl))).toBe(false);
  });

  it("MFA Device: the owner's devices are offered by name, and the one picked is locked by its ID", async () => {
    const phone = '6f1c2f0e-8a4b-4c1d-9e2f-0a1b2c3d4e5f';
    const key = '0b7d9c6a-1e2f-4a3b-8c4d-5e6f7a8b9c0d';
    const devices = [
      {
        id: phone,
        name: 'phone',
        type: 'TOTP',
        usage: 'mfa',
        addedAt: '2026-03-01T10:00:00Z',
        lastUsed: '2026-03-04T12:00:00Z',
      },
      {
        id: key,
        name: 'yubikey',
        type: 'WebAuthn',
        usage: 'mfa',
        addedAt: '2026-03-02T08:00:00Z',
        lastUsed: '2026-03-05T09:10:11Z',
      },
    ];
    const { fetchStub, puts, user } = setup(
      (method, url) => {
        if (url === '/v1/webapi/users/alice/mfa/devices') return jsonResponse(devices);
        if (url === '/v1/webapi/users/bob/mfa/devices') return jsonResponse([]);
        return undefined;
      },
      aclWith({ lock: 'all', users: ['list', 'read'] }),
    );
    await screen.findByRole('heading', { name: 'Create New Lock' });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Target kind' }), 'mfa_device');
    const owner = screen.getByRole('combobox', { name: /Device owner/ });
    await waitFor(() => expect(optionsOf(owner)).toEqual(['alice', 'bob']));
    // Partial names are not looked up: only a listed user's devices are asked for.
    await user.type(owner, 'bob');
    expect(await screen.findByText('bob has no MFA devices')).toBeTruthy();
    await user.clear(owner);
    await user.type(owner, 'alice');
    const name = screen.getByRole('combobox', { name: 'Target name' });
    await waitFor(() => expect(optionsOf(name)).toEqual([phone, key]));
    expect(labelsOf(name)).toEqual([
      expect.stringMatching(/^phone · Authenticator App · last used /),
      expect.stringMatching(/^yubikey · Hardware Key · last used /),
    ]);
    const asked = fetchStub.mock.calls.map(([url]) => String(url));
    expect(asked.filter((url) => url.endsWith('/mfa/devices'))).toEqual([
      '/v1/webapi/users/bob/mfa/devices',
      '/v1/webapi/users/alice/mfa/devices',
    ]);
    await user.type(name, key);
    await user.click(screen.getByRole('button', { name: 'Create Lock' }));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0]?.[1]).toEqual({ targets: { mfa_device: key }, message: '' });
  });

  it('MFA Device without the users read verb: no owner field, the ID is typed', async () => {
    const { user } = setup(undefined, aclWith({ lock: 'all', users: ['list'] }));
    await screen.findByRole('heading', { name: 'Create New Lock' });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Target kind' }), 'mfa_device');
    expect(screen.queryByRole('combobox', { name: /Device owner/ })).toBeNull();
  });

  it('shows the server’s refusal and stays on the form', async () => {
    const { router, user } = setup((method) =>
      method === 'PUT'
        ? errorResponse(400, 'expires: the time has passed already', 'bad_parameter')
        : undefined,
    );
    await screen.findByRole('heading', { name: 'Create New Lock' });
    await user.type(screen.getByRole('combobox', { name: 'Target name' }), 'alice');
    await user.click(screen.getByRole('button', { name: 'Create Lock' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('expires: the time has passed already')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/web/locks/new');
  });

  it('starts with the request a link names, offers the requests to lock, and locks one', async () => {
    const requestsUrl = '/v1/webapi/sites/localhost/accessrequests?scope=all';
    const denied = {
      ...pendingRequest,
      id: '11111111-2222-4333-8444-555555555555',
      state: 'DENIED',
    };
    const { puts, user } = setup(
      (method, url) =>
        url === requestsUrl
          ? jsonResponse({ items: [approvedRequest, pendingRequest, denied] })
          : undefined,
      aclWith({ lock: 'all', accessRequests: ['list'] }),
      `/web/locks/new?kind=access_request&name=${approvedRequest.id}`,
    );
    await screen.findByRole('heading', { name: 'Create New Lock' });
    const kind = screen.getByRole('combobox', { name: 'Target kind' });
    expect((kind as HTMLSelectElement).value).toBe('access_request');
    const name = screen.getByRole('combobox', { name: 'Target name' });
    expect((name as HTMLInputElement).value).toBe(approvedRequest.id);
    // Approved and pending requests are offered, with whose and what they are; a denied one is not.
    await waitFor(() => expect(optionsOf(name)).toEqual([approvedRequest.id, pendingRequest.id]));
    expect(labelsOf(name)).toEqual(['alice: node: db-1 (approved)', 'alice: roles: dba (pending)']);
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'granted in error');
    await user.click(screen.getByRole('button', { name: 'Create Lock' }));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0]?.[1]).toEqual({
      targets: { access_request: approvedRequest.id },
      message: 'granted in error',
    });
  });

  it("offers the bots' running copies for Bot Instance, by which bot and when they joined", async () => {
    const botsUrl = '/v1/webapi/sites/localhost/machine-id/bot?limit=';
    const instance = {
      id: '5b0c4a3e-9a57-4d53-a7c1-2f3b8f0c1a11',
      generation: 3,
      joinedAt: '2026-11-29T08:01:00.000Z',
      renewedAt: '2026-11-29T09:01:00.000Z',
      certExpires: '2026-11-29T10:01:00.000Z',
    };
    const runner = {
      name: 'runner',
      user: 'bot-runner',
      roles: ['ops'],
      logins: [],
      createdAt: '2026-11-29T08:00:00.000Z',
      joinMethod: 'token',
      instances: [instance],
      tokens: [],
    };
    const { puts, user } = setup(
      (method, url) =>
        url.startsWith(botsUrl)
          ? jsonResponse({ items: [runner], startKey: '', totalCount: 1 })
          : undefined,
      aclWith({ lock: 'all', bots: ['list'] }),
    );
    await screen.findByRole('heading', { name: 'Create New Lock' });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Target kind' }), 'bot_instance');
    const name = screen.getByRole('combobox', { name: 'Target name' });
    await waitFor(() => expect(optionsOf(name)).toEqual([instance.id]));
    expect(labelsOf(name)[0]).toMatch(/^runner: joined .+, renewed .+$/);
    await user.type(name, instance.id);
    await user.click(screen.getByRole('button', { name: 'Create Lock' }));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0]?.[1]).toEqual({ targets: { bot_instance: instance.id }, message: '' });
  });
});
