import type { AuthConfig } from '@postern/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UserContextContext } from '../../app/userContext';
import { configWithAuth, errorResponse, jsonResponse, renderAt } from '../../test/authConfig';
import { presetAcls, userContextFixture } from '../../test/userContexts';
import { AccountPage, newDeviceTypes } from './AccountPage';
import { mfaDeviceFixtures } from './fixtures';

const webauthn = vi.hoisted(() => ({
  browserSupportsWebAuthn: vi.fn(() => true),
  startAuthentication: vi.fn(),
  startRegistration: vi.fn(),
}));
vi.mock('@simplewebauthn/browser', () => webauthn);

const assertion = {
  id: 'cred',
  rawId: 'cred',
  type: 'public-key',
  response: { authenticatorData: 'YQ', clientDataJSON: 'Yg', signature: 'Yw' },
  clientExtensionResults: {},
};
const creation = {
  id: 'new',
  rawId: 'new',
  type: 'public-key',
  response: { attestationObject: 'YQ', clientDataJSON: 'Yg' },
  clientExtensionResults: {},
};
const challenge = {
  webauthn_challenge: { publicKey: { challenge: 'YXV0aA' } },
  totp_challenge: true,
};

type Route = (method: string, url: string) => Response | undefined;

function setup(
  route: Route = () => undefined,
  auth: Partial<AuthConfig> = { second_factor: 'on' },
) {
  const fetchStub = vi.fn(async (url: string, init: RequestInit) => {
    const method = init.method ?? 'GET';
    const answer = route(method, url);
    if (answer) return answer;
    if (url === '/v1/webapi/mfa/devices' && method === 'GET')
      return jsonResponse(mfaDeviceFixtures);
    if (url === '/v1/webapi/users/privilege/token') return jsonResponse('priv-1');
    if (url.endsWith('/authenticatechallenge') || url.endsWith('/authenticatechallenge/password')) {
      return jsonResponse(challenge);
    }
    if (url.endsWith('/registerchallenge')) {
      return jsonResponse({
        totp: { qrCode: 'data:image/svg+xml,qr', secret: 'NEWSECRET' },
        webauthn: { publicKey: { challenge: 'cmVn' } },
      });
    }
    return jsonResponse({ message: 'ok' });
  });
  vi.stubGlobal('fetch', fetchStub);
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const context = userContextFixture(presetAcls.access, {
    userName: 'alice',
    authType: 'sso',
    roles: ['access', 'auditor'],
    logins: ['alice', 'ubuntu'],
  });
  renderAt(
    <QueryClientProvider client={client}>
      <UserContextContext.Provider value={context}>
        <AccountPage />
      </UserContextContext.Provider>
    </QueryClientProvider>,
    '/web/account',
    configWithAuth(auth),
  );
  const calls = () =>
    fetchStub.mock.calls.map(([url, init]) => [
      init.method,
      url,
      init.body === undefined ? undefined : JSON.parse(String(init.body)),
    ]);
  return { user: userEvent.setup(), calls };
}

beforeEach(() => {
  webauthn.startAuthentication.mockResolvedValue(assertion);
  webauthn.startRegistration.mockResolvedValue(creation);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const oldPw = btoa('old-password');
const newPw = btoa('new-password-123');

async function fillPasswords(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText('Current password'), 'old-password');
  await user.type(screen.getByLabelText('New password'), 'new-password-123');
  await user.type(screen.getByLabelText('Confirm new password'), 'new-password-123');
}

describe('AccountPage (hooks + views, stubbed fetch)', () => {
  it('lists the devices from GET mfa/devices', async () => {
    setup();
    expect(await screen.findByText('yubikey')).toBeTruthy();
    expect(screen.getByText('phone')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Account Settings' })).toBeTruthy();
  });

  it('shows who the user is: username, auth type, roles and logins', async () => {
    setup();
    const row = async (name: string) =>
      (await screen.findByRole('row', { name: new RegExp(`^${name}`) })).textContent;
    expect(await row('Username')).toBe('Usernamealice');
    expect(await row('Authentication')).toBe('AuthenticationSingle sign-on user');
    expect(await row('Roles')).toBe('Rolesaccessauditor');
    expect(await row('Logins')).toBe('Loginsaliceubuntu');
  });

  it('changes the password with an authenticator code', async () => {
    const { user, calls } = setup();
    await screen.findByText('yubikey');
    await fillPasswords(user);
    await user.type(screen.getByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Update password' }));
    expect(await screen.findByText('Your password has been changed.')).toBeTruthy();
    expect(calls().at(-1)).toEqual([
      'PUT',
      '/v1/webapi/users/password',
      { old_password: oldPw, new_password: newPw, second_factor_token: '123456' },
    ]);
  });

  it('changes the password with a hardware key: the password challenge, then the PUT', async () => {
    const { user, calls } = setup();
    await screen.findByText('yubikey');
    await fillPasswords(user);
    await user.click(screen.getByRole('radio', { name: 'Hardware key' }));
    await user.click(screen.getByRole('button', { name: 'Update password' }));
    expect(await screen.findByText('Your password has been changed.')).toBeTruthy();
    expect(webauthn.startAuthentication).toHaveBeenCalledWith({
      optionsJSON: challenge.webauthn_challenge.publicKey,
    });
    expect(calls().slice(-2)).toEqual([
      ['POST', '/v1/webapi/mfa/authenticatechallenge/password', { pass: oldPw }],
      [
        'PUT',
        '/v1/webapi/users/password',
        { old_password: oldPw, new_password: newPw, webauthnAssertionResponse: assertion },
      ],
    ]);
  });

  it('adds an authenticator app: privilege token, registration challenge, POST mfa/devices', async () => {
    const { user, calls } = setup();
    await screen.findByText('yubikey');
    await user.click(screen.getByRole('button', { name: 'Add two-factor device' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add two-factor device' });
    await user.type(within(dialog).getByLabelText('Authenticator code'), '111111');
    await user.click(within(dialog).getByRole('button', { name: 'Verify' }));
    await user.click(await within(dialog).findByRole('radio', { name: 'Authenticator App' }));
    expect(await within(dialog).findByLabelText('Secret key')).toHaveProperty(
      'textContent',
      'NEWSECRET',
    );
    await user.type(within(dialog).getByLabelText('Authenticator code'), '222222');
    await user.click(within(dialog).getByRole('button', { name: 'Add device' }));
    expect(await screen.findByText('Added authenticator-app.')).toBeTruthy();
    const sent = calls();
    expect(sent.filter(([method]) => method !== 'GET')).toEqual([
      ['POST', '/v1/webapi/users/privilege/token', { secondFactorToken: '111111' }],
      [
        'POST',
        '/v1/webapi/mfa/token/priv-1/registerchallenge',
        { deviceType: 'totp', deviceUsage: 'mfa' },
      ],
      [
        'POST',
        '/v1/webapi/mfa/devices',
        {
          tokenId: 'priv-1',
          deviceName: 'authenticator-app',
          deviceUsage: 'mfa',
          secondFactorToken: '222222',
        },
      ],
    ]);
    // The list reloads after the change.
    expect(
      sent.filter(([method, url]) => method === 'GET' && url === '/v1/webapi/mfa/devices'),
    ).toHaveLength(2);
  });

  it('adds a hardware key after re-authenticating with one', async () => {
    const { user, calls } = setup();
    await screen.findByText('yubikey');
    await user.click(screen.getByRole('button', { name: 'Add two-factor device' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add two-factor device' });
    await user.click(within(dialog).getByRole('radio', { name: 'Hardware key' }));
    await user.click(within(dialog).getByRole('button', { name: 'Verify' }));
    await user.click(await within(dialog).findByRole('radio', { name: 'Hardware Key' }));
    await user.click(within(dialog).getByRole('button', { name: 'Register hardware key' }));
    expect(await screen.findByText('Added hardware-key.')).toBeTruthy();
    expect(calls().filter(([method]) => method !== 'GET')).toEqual([
      ['POST', '/v1/webapi/mfa/authenticatechallenge', {}],
      ['POST', '/v1/webapi/users/privilege/token', { webauthnAssertionResponse: assertion }],
      [
        'POST',
        '/v1/webapi/mfa/token/priv-1/registerchallenge',
        { deviceType: 'webauthn', deviceUsage: 'mfa' },
      ],
      [
        'POST',
        '/v1/webapi/mfa/devices',
        {
          tokenId: 'priv-1',
          deviceName: 'hardware-key',
          deviceUsage: 'mfa',
          webauthnRegisterResponse: creation,
        },
      ],
    ]);
  });

  it('removes a device with a privilege token', async () => {
    const { user, calls } = setup();
    await screen.findByText('yubikey');
    await user.click(screen.getByRole('button', { name: 'Remove phone' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove device' });
    await user.type(within(dialog).getByLabelText('Authenticator code'), '333333');
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Removed phone.')).toBeTruthy();
    expect(calls().filter(([method]) => method !== 'GET')).toEqual([
      ['POST', '/v1/webapi/users/privilege/token', { secondFactorToken: '333333' }],
      ['DELETE', '/v1/webapi/mfa/token/priv-1/devices/phone', {}],
    ]);
  });

  it('shows the server refusing to remove the last device', async () => {
    const { user } = setup((method) =>
      method === 'DELETE'
        ? errorResponse(400, 'cannot delete the last MFA device', 'bad_parameter')
        : undefined,
    );
    await screen.findByText('yubikey');
    await user.click(screen.getByRole('button', { name: 'Remove phone' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove device' });
    await user.type(within(dialog).getByLabelText('Authenticator code'), '333333');
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await within(dialog).findByText('cannot delete the last MFA device')).toBeTruthy();
    await waitFor(() => expect(screen.queryByText('Removed phone.')).toBeNull());
  });
});

describe('newDeviceTypes', () => {
  const types = (auth: Partial<AuthConfig>) => newDeviceTypes(configWithAuth(auth).auth);
  it('follows second_factor and allowPasswordless', () => {
    expect(types({ second_factor: 'otp', allowPasswordless: true })).toEqual(['totp']);
    expect(types({ second_factor: 'webauthn' })).toEqual(['webauthn']);
    expect(types({ second_factor: 'on', allowPasswordless: true })).toEqual([
      'totp',
      'webauthn',
      'passkey',
    ]);
  });
});
