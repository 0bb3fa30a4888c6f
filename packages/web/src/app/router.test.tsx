import { emptyAcl } from '@postern/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { aclWith, presetAcls, userContextFixture } from '../test/userContexts';
import { renderWithTheme } from '../test/render';
import { config, contextUrl, json, renderApp, serverData, signIn } from '../test/routerHarness';
import { App } from './App';
import { deriveFeatureFlags, featureFlagNames, type FeatureFlags } from './featureFlags';
import { FeatureFlagsContext } from './featureFlagsContext';
import { FeatureGuard } from './FeatureGuard';
import { features } from './features';
import { appRoutes } from './router';
import { DocumentTitle, documentTitle } from './routeTitle';

afterEach(() => vi.unstubAllGlobals());

describe('public routes', () => {
  it.each([
    ['/web/msg/error/login_failed', 'Sign-in could not be completed.'],
    ['/web/msg/error/login', 'Sign-in could not be completed.'],
    [
      '/web/msg/error/login/callback',
      'The identity provider sent an answer this proxy could not accept.',
    ],
    [
      '/web/msg/error/login/auth',
      'You signed in at the identity provider, but you may not use this cluster.',
    ],
  ])('%s shows Login Unsuccessful, why, the reason and a way back', async (path, lead) => {
    renderApp(`${path}?reason=${encodeURIComponent('<b>no role matches your groups</b>')}`);
    expect(await screen.findByText('Login Unsuccessful')).toBeTruthy();
    expect(screen.getByText(lead)).toBeTruthy();
    // The reason is text, never markup.
    expect(screen.getByText('<b>no role matches your groups</b>')).toBeTruthy();
    expect(document.querySelector('b')).toBeNull();
    const link = screen.getByRole('link', { name: 'Please attempt to log in again.' });
    expect(link.getAttribute('href')).toBe('/web/login');
    await waitFor(() => expect(document.title).toBe('Login Unsuccessful'));
  });

  it('the legacy details parameter still reads', async () => {
    renderApp('/web/msg/error/login_failed?details=connector%20said%20no');
    expect(await screen.findByText('connector said no')).toBeTruthy();
  });

  it('a login error without a reason still explains and links back', async () => {
    renderApp('/web/msg/error/login/callback');
    expect(
      await screen.findByText('The identity provider sent an answer this proxy could not accept.'),
    ).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Please attempt to log in again.' })).toBeTruthy();
  });

  it('login success is titled Success and tells the user to return to the terminal', async () => {
    renderApp('/web/msg/info/login_success');
    expect(await screen.findByRole('heading', { name: 'Success' })).toBeTruthy();
    expect(screen.getByText(/close this tab and return to the terminal/)).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('Success'));
  });

  it('the login page asks for username and password, without a session', async () => {
    renderApp('/web/login');
    expect(await screen.findByRole('heading', { name: 'Sign in to Postern' })).toBeTruthy();
    expect(screen.getByLabelText('Username')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('Sign in'));
  });

  it.each([
    ['/web/invite/tok1', 'Invite', 'Welcome to Postern'],
    ['/web/reset/tok1', 'Password Reset', 'Reset your password'],
  ])('%s shows the %s screen without a session', async (path, title, heading) => {
    const token = {
      tokenId: 'tok1',
      user: 'alice',
      expiry: '2030-01-01T00:00:00Z',
      type: 'invite',
      qrCode: 'data:image/svg+xml;base64,PHN2Zy8+',
      totpSecret: 'JBSWY3DPEHPK3PXP',
    };
    renderApp(path, (url) =>
      url === '/v1/webapi/users/password/token/tok1' ? json(token) : json({}, 404),
    );
    expect(await screen.findByRole('heading', { name: heading })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe(title));
  });

  it('/continue without the first step starts again at the first step', async () => {
    const router = renderApp('/web/reset/tok1/continue', () =>
      json({ error: { message: 'bad or expired token', code: 'not_found' } }, 404),
    );
    expect(await screen.findByText('This link is invalid or has expired.')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/web/reset/tok1');
  });

  it('/web/msg/whatever is 404 without asking for a session', async () => {
    renderApp('/web/msg/whatever');
    expect(await screen.findByText('404 Not Found')).toBeTruthy();
    expect(screen.getByText('The requested path could not be found.')).toBeTruthy();
  });
});

describe('private routes (signed in)', () => {
  it('/web lands on the first permitted nav item: Manage Users for an editor', async () => {
    signIn();
    const router = renderApp('/web');
    expect(await screen.findByRole('heading', { name: 'Manage Users', level: 2 })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/web/users');
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    const access = within(nav).getByRole('group', { name: 'Access' });
    expect(
      within(access)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual([
      'Manage Users',
      'Manage Roles',
      'Manage Auth Connectors',
      'Manage Session & Identity Locks',
      'Manage Bots',
      'Join Tokens',
      'Enroll New Resource',
      'Manage Integrations',
      'Enroll New Integration',
    ]);
    expect(within(nav).getByRole('link', { name: 'Manage Clusters' })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('Manage Users'));
  });

  it('/web lands on Manage Clusters for a user who may only list clusters', async () => {
    signIn();
    const router = renderApp(
      '/web',
      serverData,
      userContextFixture(aclWith({ trustedClusters: ['list'] })),
    );
    expect(await screen.findByText('leaf-a')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/web/clusters');
  });

  it('/web lands on Help & Support when no nav item is permitted', async () => {
    signIn();
    const router = renderApp('/web', (url) => json({ url }), userContextFixture(emptyAcl()));
    await waitFor(() => expect(router.state.location.pathname).toBe('/web/support'));
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).queryAllByRole('link')).toEqual([]);
  });

  it.each([
    '/web/users',
    '/web/roles',
    '/web/sso',
    '/web/locks',
    '/web/locks/new',
    '/web/clusters',
    '/web/trust',
    '/web/discover',
    '/web/tokens',
  ])('%s shows Access Denied inside the main layout for an auditor', async (path) => {
    signIn();
    renderApp(path, serverData, userContextFixture(presetAcls.auditor));
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
    expect(screen.getByText('You do not have permission to view this page.')).toBeTruthy();
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeTruthy();
  });

  it.each([
    ['/web/users', 'Manage Users'],
    ['/web/roles', 'Manage Roles'],
    ['/web/sso', 'Manage Auth Connectors'],
    ['/web/locks', 'Manage Session & Identity Locks'],
    ['/web/locks/new', 'Create New Lock'],
    ['/web/trust', 'Trusted Clusters'],
  ])('%s shows %s to an editor', async (path, heading) => {
    signIn();
    renderApp(path);
    expect(await screen.findByRole('heading', { name: heading, level: 2 })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe(heading));
  });

  it('/web/tokens shows Join Tokens, and links it, only to who may list join tokens', async () => {
    signIn();
    const respond = (url: string) =>
      url === '/v1/webapi/tokens' ? json({ items: [] }) : serverData(url);
    renderApp('/web/tokens', respond, userContextFixture(aclWith({ tokens: ['list'] })));
    expect(await screen.findByRole('heading', { name: 'Join Tokens', level: 2 })).toBeTruthy();
    expect(await screen.findByText('No live join tokens')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Join Tokens' }).getAttribute('href')).toBe(
      '/web/tokens',
    );
    await waitFor(() => expect(document.title).toBe('Join Tokens'));
  });

  it('/web/tokens is Access Denied with every right on join tokens but list', async () => {
    signIn();
    const acl = aclWith({ tokens: ['read', 'create', 'edit', 'remove'] });
    renderApp('/web/tokens', serverData, userContextFixture(acl));
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).queryByRole('link', { name: 'Join Tokens' })).toBeNull();
  });

  it('/web/discover shows Enroll New Resource to who may create join tokens and list servers', async () => {
    signIn();
    const acl = aclWith({ tokens: ['create'], nodes: ['list', 'read'] });
    renderApp('/web/discover', serverData, userContextFixture(acl));
    expect(
      await screen.findByRole('heading', { name: 'Enroll New Resource', level: 2 }),
    ).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Enroll New Resource' })).toBeTruthy();
  });

  it('Account Settings and Help & Support stay open to a user with no permissions', async () => {
    signIn();
    renderApp('/web/support', (url) => json({ url }), userContextFixture(emptyAcl()));
    expect(await screen.findByRole('heading', { name: 'Help & Support', level: 2 })).toBeTruthy();
  });

  it('an unknown path is 404 inside the main layout', async () => {
    signIn();
    renderApp('/web/nope');
    expect(await screen.findByText('The requested path could not be found.')).toBeTruthy();
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeTruthy();
  });

  it('loads the user context once for the proxy cluster, with a loader meanwhile', async () => {
    signIn();
    let answer: (r: Response) => void = () => undefined;
    const pending = new Promise<Response>((resolve) => (answer = resolve));
    const fetchStub = vi.fn(async (url: string) =>
      url === contextUrl ? pending : serverData(url),
    );
    vi.stubGlobal('fetch', fetchStub);
    const router = createMemoryRouter(appRoutes(), { initialEntries: ['/web/roles'] });
    render(<App router={router} config={config} />);
    expect(await screen.findByRole('status', { name: 'Loading your permissions' })).toBeTruthy();
    answer(json(userContextFixture()));
    expect(await screen.findByRole('heading', { name: 'Manage Roles', level: 2 })).toBeTruthy();
    await act(() => router.navigate('/web/users'));
    expect(await screen.findByRole('heading', { name: 'Manage Users', level: 2 })).toBeTruthy();
    expect(fetchStub.mock.calls.filter(([url]) => url === contextUrl)).toHaveLength(1);
  });

  it('shows Internal Error with a retry when the user context fails to load', async () => {
    signIn();
    const context = vi
      .fn<() => Response>()
      .mockReturnValueOnce(
        json({ error: { message: 'the cluster is not known', code: 'not_found' } }, 404),
      )
      .mockReturnValue(json(userContextFixture()));
    renderApp('/web/users', serverData, context);
    expect(await screen.findByRole('heading', { name: 'Internal Error' })).toBeTruthy();
    expect(screen.getByText('the cluster is not known')).toBeTruthy();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('heading', { name: 'Manage Users', level: 2 })).toBeTruthy();
  });

  it("shows a 403 'locked:' answer of any call in a notification", async () => {
    signIn();
    const locked = { error: { message: 'locked: under review', code: 'access_denied' } };
    renderApp('/web/users', (url) =>
      url === '/v1/webapi/users' ? json(locked, 403) : serverData(url),
    );
    const notice = await screen.findByRole('alert', { name: 'Access locked: under review' });
    expect(within(notice).getByText('Access locked: under review')).toBeTruthy();
  });

  it.each([
    ['/web/account', ['Profile', 'Change password', 'Two-factor devices']],
    ['/web/account/password', ['Change password']],
    ['/web/account/twofactor', ['Two-factor devices']],
  ])('%s shows Account Settings', async (path, sections) => {
    signIn();
    renderApp(path, (url) =>
      url === '/v1/webapi/mfa/devices' ? json([]) : json({ message: 'ok' }),
    );
    expect(await screen.findByRole('heading', { name: 'Account Settings', level: 2 })).toBeTruthy();
    const headings = within(screen.getByRole('main'))
      .getAllByRole('heading', { level: 3 })
      .map((h) => h.textContent);
    expect(headings).toEqual(sections);
    await waitFor(() => expect(document.title).toBe('Account Settings'));
  });

  it('paths outside /web go to /web', async () => {
    signIn();
    const router = renderApp('/somewhere');
    await waitFor(() => expect(router.state.location.pathname).toBe('/web/users'));
  });

  it('the user menu lists Help & Support and switches the theme, stored for other tabs', async () => {
    signIn();
    const user = userEvent.setup();
    renderApp('/web/clusters');
    // The menu's button shows who is signed in: the initial and the name.
    const account = await screen.findByRole('button', { name: 'Account: admin' });
    expect(account.textContent).toBe('Aadmin');
    await user.click(account);
    // jsdom has no layout, so Floating UI reports the anchor as hidden and the dropdown gets
    // `display: none`; the items are there all the same.
    const item = (name: string) => screen.findByRole('menuitem', { name, hidden: true });
    expect((await item('Help & Support')).getAttribute('href')).toBe('/web/support');
    expect((await item('Account Settings')).getAttribute('href')).toBe('/web/account');
    expect((await item('Console Settings')).getAttribute('href')).toBe('/web/settings');
    expect(await item('Logout')).toBeTruthy();
    await user.click(await item('Switch to dark theme'));
    await waitFor(() => expect(localStorage.getItem('grv_teleport_ui_theme')).toBe('dark'));
    expect(document.documentElement.getAttribute('data-mantine-color-scheme')).toBe('dark');

    // Another tab switches back: this one follows.
    localStorage.setItem('grv_teleport_ui_theme', 'light');
    act(() => {
      window.dispatchEvent(
        new StorageEvent('storage', { key: 'grv_teleport_ui_theme', newValue: 'light' }),
      );
    });
    expect(document.documentElement.getAttribute('data-mantine-color-scheme')).toBe('light');
  });
});

describe('feature guard and titles', () => {
  const clusters = features.find((f) => f.id === 'clusters');
  const withFlags = (flags: FeatureFlags) => (
    <FeatureFlagsContext.Provider value={flags}>
      {clusters && <FeatureGuard feature={clusters}>secret page</FeatureGuard>}
    </FeatureFlagsContext.Provider>
  );

  it('shows Access Denied when the flag is off', () => {
    const none = Object.fromEntries(featureFlagNames.map((f) => [f, false])) as FeatureFlags;
    renderWithTheme(withFlags(none));
    expect(screen.getByText('Access Denied')).toBeTruthy();
    expect(screen.queryByText('secret page')).toBeNull();
  });

  it('shows the page when the flag is on', () => {
    const acl = emptyAcl();
    acl.trustedClusters.list = true;
    const flags = deriveFeatureFlags(acl, {
      assistEnabled: false,
      isDashboard: false,
      isUsageBasedBilling: false,
    });
    renderWithTheme(withFlags(flags));
    expect(screen.getByText('secret page')).toBeTruthy();
  });

  it("titles cluster pages '{clusterId} • {title}'", async () => {
    expect(documentTitle('Servers')).toBe('Servers');
    const router = createMemoryRouter(
      [
        {
          path: '/web/cluster/:clusterId/nodes',
          element: <DocumentTitle />,
          handle: { title: 'Servers' },
        },
      ],
      { initialEntries: ['/web/cluster/east/nodes'] },
    );
    render(<RouterProvider router={router} />);
    await waitFor(() => expect(document.title).toBe('east • Servers'));
  });
});
