import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pageLocation } from '../../lib/pageLocation';
import { webauthnErrors } from '../../lib/webauthn';
import { storeToken } from '../../api/credentials';
import {
  configWithAuth,
  errorResponse,
  jsonResponse,
  renderAt,
  renderRoutes,
} from '../../test/authConfig';
import { LoginPage } from './LoginPage';

const webauthn = vi.hoisted(() => ({
  browserSupportsWebAuthn: vi.fn(() => true),
  startAuthentication: vi.fn(),
  startRegistration: vi.fn(),
}));
vi.mock('@simplewebauthn/browser', () => webauthn);

const session = {
  type: 'bearer',
  token: 'ignored',
  expires_in: 600,
  sessionExpires: '2030-01-01T00:00:00Z',
  sessionInactiveTimeout: 0,
};
const challenge = {
  webauthn_challenge: { publicKey: { challenge: 'c2lnbg' } },
  totp_challenge: false,
};
const assertion = {
  id: 'cred',
  rawId: 'cred',
  type: 'public-key',
  response: { authenticatorData: 'YQ', clientDataJSON: 'Yg', signature: 'Yw' },
  clientExtensionResults: {},
};

type Route = (url: string, init: RequestInit) => Response;
let assign: ReturnType<typeof vi.fn<(url: string) => void>>;

function stubFetch(route: Route) {
  const fetchStub = vi.fn(async (url: string, init: RequestInit) => route(url, init));
  vi.stubGlobal('fetch', fetchStub);
  const bodies = () =>
    fetchStub.mock.calls.map(([url, init]) => [url, init.method, JSON.parse(String(init.body))]);
  return { fetchStub, bodies };
}

function renderLogin(path: string, auth: Parameters<typeof configWithAuth>[0]) {
  renderAt(<LoginPage />, path, configWithAuth(auth));
  return userEvent.setup();
}

async function fillCredentials(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText('Username'), 'alice');
  await user.type(screen.getByLabelText('Password'), 'pässwörd€');
}

beforeEach(() => {
  assign = vi.fn();
  vi.spyOn(pageLocation, 'assign').mockImplementation(assign);
  vi.spyOn(pageLocation, 'origin').mockReturnValue('https://proxy.example.com');
  webauthn.browserSupportsWebAuthn.mockReturnValue(true);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('LoginPage (hook + view, stubbed fetch)', () => {
  it('password + code: POST sessions/web with a base64 password, then a full page load', async () => {
    const { bodies } = stubFetch(() => jsonResponse(session));
    const user = renderLogin('/web/login?redirect_uri=%2Fweb%2Fclusters%3Fsort%3Dname', {
      second_factor: 'otp',
    });
    await fillCredentials(user);
    await user.type(screen.getByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/web/clusters?sort=name'));
    expect(bodies()).toEqual([
      [
        '/v1/webapi/sessions/web',
        'POST',
        { user: 'alice', pass: 'cMOkc3N3w7ZyZOKCrA==', second_factor_token: '123456' },
      ],
    ]);
    expect(localStorage.getItem('grv_teleport_last_active')).toMatch(/^\d+$/);
  });

  it.each(['//evil.example.com', 'https://evil.example.com', '/\\evil', 'javascript:alert(1)'])(
    'an unsafe redirect_uri (%s) signs in to /web',
    async (redirect) => {
      stubFetch(() => jsonResponse(session));
      const user = renderLogin(`/web/login?redirect_uri=${encodeURIComponent(redirect)}`, {});
      await fillCredentials(user);
      await user.click(screen.getByRole('button', { name: 'Sign in' }));
      await waitFor(() => expect(assign).toHaveBeenCalledWith('/web'));
    },
  );

  it.each([
    ['an unknown page', '/web/no/such/page', '/web'],
    ['a full URL on our origin', 'https://proxy.example.com/web/users?q=a', '/web/users?q=a'],
    ['a full URL elsewhere', 'https://proxy.example.com.evil.test/web/users', '/web'],
  ])('a redirect_uri to %s (%s) signs in to %s', async (_label, redirect, expected) => {
    stubFetch(() => jsonResponse(session));
    const user = renderLogin(`/web/login?redirect_uri=${encodeURIComponent(redirect)}`, {
      second_factor: 'otp',
    });
    await fillCredentials(user);
    await user.type(screen.getByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(expected));
  });

  it('remembers the second factor of a successful sign-in, and not of a failed one', async () => {
    webauthn.startAuthentication.mockResolvedValue(assertion);
    stubFetch((url) =>
      url.endsWith('/mfa/login/begin') ? jsonResponse(challenge) : jsonResponse(session),
    );
    const user = renderLogin('/web/login', { second_factor: 'on' });
    expect(screen.getByRole('radio', { name: 'Authenticator app' })).toHaveProperty(
      'checked',
      true,
    );
    await fillCredentials(user);
    await user.click(screen.getByRole('radio', { name: 'Hardware key' }));
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/web'));
    expect(localStorage.getItem('grv_teleport_last_mfa_method')).toBe('webauthn');

    cleanup();
    stubFetch(() => errorResponse(401, 'invalid credentials', 'not_authenticated'));
    const again = renderLogin('/web/login', { second_factor: 'on' });
    expect(screen.getByRole('radio', { name: 'Hardware key' })).toHaveProperty('checked', true);
    await fillCredentials(again);
    await again.click(screen.getByRole('radio', { name: 'Authenticator app' }));
    await again.type(screen.getByLabelText('Authenticator code'), '123456');
    await again.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('invalid credentials')).toBeTruthy();
    expect(localStorage.getItem('grv_teleport_last_mfa_method')).toBe('webauthn');
  });

  it('a signed-in user goes on to redirect_uri instead of seeing the form', async () => {
    storeToken({
      accessToken: 'abc',
      expiresIn: 600,
      created: Date.now(),
      sessionExpires: '',
      sessionInactiveTimeout: 0,
    });
    const { router } = renderRoutes(
      [
        { path: '/web/login', element: <LoginPage /> },
        { path: '*', element: <p>private page</p> },
      ],
      '/web/login?redirect_uri=%2Fweb%2Fusers',
      configWithAuth({}),
    );
    expect(await screen.findByText('private page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/web/users');
  });

  it('shows the message of the lock that ended the last session until dismissed', async () => {
    localStorage.setItem('grv_teleport_locked_notice', 'under investigation');
    const user = renderLogin('/web/login?message=spoofed', {});
    const notice = screen.getByRole('region', { name: 'Access locked' });
    expect(notice.textContent).toContain('Access locked: under investigation');
    expect(screen.queryByText(/spoofed/)).toBeNull();
    await user.click(within(notice).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('region', { name: 'Access locked' })).toBeNull();
    expect(localStorage.getItem('grv_teleport_locked_notice')).toBeNull();
  });

  it('password + hardware key: begin, the key signs, finishsession', async () => {
    webauthn.startAuthentication.mockResolvedValue(assertion);
    const { bodies } = stubFetch((url) =>
      url.endsWith('/mfa/login/begin') ? jsonResponse(challenge) : jsonResponse(session),
    );
    const user = renderLogin('/web/login', { second_factor: 'webauthn' });
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/web'));
    expect(webauthn.startAuthentication).toHaveBeenCalledWith({
      optionsJSON: challenge.webauthn_challenge.publicKey,
    });
    expect(bodies()).toEqual([
      ['/v1/webapi/mfa/login/begin', 'POST', { user: 'alice', pass: 'cMOkc3N3w7ZyZOKCrA==' }],
      [
        '/v1/webapi/mfa/login/finishsession',
        'POST',
        { user: 'alice', webauthnAssertionResponse: assertion },
      ],
    ]);
  });

  it('passkey: a passwordless challenge, and finishsession without a user', async () => {
    webauthn.startAuthentication.mockResolvedValue(assertion);
    const { bodies } = stubFetch((url) =>
      url.endsWith('/mfa/login/begin') ? jsonResponse(challenge) : jsonResponse(session),
    );
    const user = renderLogin('/web/login?redirect_uri=/web/support', { allowPasswordless: true });
    await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/web/support'));
    expect(bodies()).toEqual([
      ['/v1/webapi/mfa/login/begin', 'POST', { passwordless: true }],
      [
        '/v1/webapi/mfa/login/finishsession',
        'POST',
        { user: '', webauthnAssertionResponse: assertion },
      ],
    ]);
  });

  it('shows the server message and stays on the page when sign-in fails', async () => {
    stubFetch(() => errorResponse(401, 'invalid credentials', 'not_authenticated'));
    const user = renderLogin('/web/login', {});
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('invalid credentials')).toBeTruthy();
    expect(assign).not.toHaveBeenCalled();
  });

  it('names the browsers to use when WebAuthn is missing', async () => {
    webauthn.browserSupportsWebAuthn.mockReturnValue(false);
    stubFetch(() => jsonResponse(challenge));
    const user = renderLogin('/web/login', { allowPasswordless: true });
    await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText(webauthnErrors.unsupported)).toBeTruthy();
  });

  it("says 'error obtaining credential' when the key gives nothing back", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    webauthn.startAuthentication.mockRejectedValue(new DOMException('no', 'NotAllowedError'));
    stubFetch(() => jsonResponse(challenge));
    const user = renderLogin('/web/login', { second_factor: 'webauthn' });
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('error obtaining credential, please try again')).toBeTruthy();
  });

  it.each([
    [
      'a template',
      {
        name: 'okta',
        type: 'oidc' as const,
        url: '/v1/webapi/oidc/login/web?connector_id=:providerName&redirect_url=:redirect',
      },
      'Sign in with okta',
      '/v1/webapi/oidc/login/web?connector_id=okta&redirect_url=%2Fweb%2Fclusters%3Fq%3D1',
    ],
    [
      'a URL ending ready for the redirect',
      {
        name: 'corp',
        displayName: 'Corporate SAML',
        type: 'saml' as const,
        url: '/v1/webapi/saml/login/web?connector_id=corp&redirect_url=',
      },
      'Sign in with Corporate SAML',
      '/v1/webapi/saml/login/web?connector_id=corp&redirect_url=%2Fweb%2Fclusters%3Fq%3D1',
    ],
  ])(
    'SSO through %s goes to the provider with the same-origin path',
    async (_, provider, label, url) => {
      stubFetch(() => jsonResponse({}));
      const user = renderLogin('/web/login?redirect_uri=%2Fweb%2Fclusters%3Fq%3D1', {
        providers: [provider],
      });
      await user.click(screen.getByRole('button', { name: label }));
      expect(assign).toHaveBeenCalledWith(url);
    },
  );

  it('SSO never carries a redirect to another origin', async () => {
    stubFetch(() => jsonResponse({}));
    const user = renderLogin('/web/login?redirect_uri=https%3A%2F%2Fevil.example%2Fx', {
      providers: [
        {
          name: 'gh',
          type: 'github',
          url: '/v1/webapi/github/login/web?connector_id=gh&redirect_url=',
        },
      ],
    });
    await user.click(screen.getByRole('button', { name: 'Sign in with gh' }));
    expect(assign).toHaveBeenCalledWith(
      '/v1/webapi/github/login/web?connector_id=gh&redirect_url=' + encodeURIComponent('/web'),
    );
  });
});
