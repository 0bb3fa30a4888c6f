import type { AuthConfig } from '@postern/contracts';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../app/App';
import { appRoutes } from '../../app/router';
import { pageLocation } from '../../lib/pageLocation';
import { configWithAuth, errorResponse, jsonResponse } from '../../test/authConfig';
import { userTokenFixture } from './fixtures';

const webauthn = vi.hoisted(() => ({
  browserSupportsWebAuthn: vi.fn(() => true),
  startAuthentication: vi.fn(),
  startRegistration: vi.fn(),
}));
vi.mock('@simplewebauthn/browser', () => webauthn);

const creation = {
  id: 'new',
  rawId: 'new',
  type: 'public-key',
  response: { attestationObject: 'YQ', clientDataJSON: 'Yg' },
  clientExtensionResults: {},
};
const registerOptions = { challenge: 'cmVn', rp: { name: 'Postern' } };
const newPassword = 'correct-horse-battery';
const encoded = btoa(newPassword);

type Route = (url: string, init: RequestInit) => Response | undefined;
let assign: ReturnType<typeof vi.fn<(url: string) => void>>;

function setup(path: string, auth: Partial<AuthConfig>, route: Route = () => undefined) {
  const fetchStub = vi.fn(async (url: string, init: RequestInit) => {
    const answer = route(url, init);
    if (answer) return answer;
    if (url === '/v1/webapi/users/password/token/tok1') return jsonResponse(userTokenFixture);
    if (url.endsWith('/registerchallenge')) {
      return jsonResponse({ webauthn: { publicKey: registerOptions } });
    }
    return jsonResponse({});
  });
  vi.stubGlobal('fetch', fetchStub);
  const router = createMemoryRouter(appRoutes(), { initialEntries: [path] });
  render(<App router={router} config={configWithAuth(auth)} />);
  const calls = () =>
    fetchStub.mock.calls.map(([url, init]) => [
      init.method,
      url,
      init.body === undefined ? undefined : JSON.parse(String(init.body)),
    ]);
  return { router, calls, user: userEvent.setup() };
}

async function choosePassword(user: ReturnType<typeof userEvent.setup>, next = 'Next') {
  await user.type(await screen.findByLabelText('Password'), newPassword);
  await user.type(screen.getByLabelText('Confirm password'), newPassword);
  await user.click(screen.getByRole('button', { name: next }));
}

beforeEach(() => {
  assign = vi.fn();
  vi.spyOn(pageLocation, 'assign').mockImplementation(assign);
  webauthn.startRegistration.mockResolvedValue(creation);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('invite and reset (routes, hook and view, stubbed fetch)', () => {
  it('invite with an authenticator app: password, /continue, code, then a full page load of /web', async () => {
    const { router, calls, user } = setup('/web/invite/tok1', { second_factor: 'otp' });
    await choosePassword(user);
    await waitFor(() => expect(router.state.location.pathname).toBe('/web/invite/tok1/continue'));
    expect(screen.getByLabelText('Secret key')).toHaveProperty('textContent', 'JBSWY3DPEHPK3PXP');
    await user.type(screen.getByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/web'));
    expect(calls()).toEqual([
      ['GET', '/v1/webapi/users/password/token/tok1', undefined],
      [
        'PUT',
        '/v1/webapi/users/password/token',
        { token: 'tok1', password: encoded, second_factor_token: '123456' },
      ],
    ]);
  });

  it('invite with a hardware key: a registration challenge, the browser, then the PUT', async () => {
    const { calls, user } = setup('/web/invite/tok1', { second_factor: 'webauthn' });
    await choosePassword(user);
    await user.click(await screen.findByRole('button', { name: 'Register hardware key' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/web'));
    expect(webauthn.startRegistration).toHaveBeenCalledWith({ optionsJSON: registerOptions });
    expect(calls().slice(1)).toEqual([
      [
        'POST',
        '/v1/webapi/mfa/token/tok1/registerchallenge',
        { deviceType: 'webauthn', deviceUsage: 'mfa' },
      ],
      [
        'PUT',
        '/v1/webapi/users/password/token',
        {
          token: 'tok1',
          password: encoded,
          webauthnCreationResponse: creation,
          deviceName: 'hardware-key',
        },
      ],
    ]);
  });

  it('reset without a password is passwordless: a passkey and password null', async () => {
    const { router, calls, user } = setup('/web/reset/tok1', {
      second_factor: 'on',
      allowPasswordless: true,
    });
    await user.click(
      await screen.findByRole('button', { name: 'Use a passkey instead of a password' }),
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/web/reset/tok1/continue'));
    await user.click(screen.getByRole('button', { name: 'Register passkey' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/web'));
    expect(calls().slice(1)).toEqual([
      [
        'POST',
        '/v1/webapi/mfa/token/tok1/registerchallenge',
        { deviceType: 'webauthn', deviceUsage: 'passwordless' },
      ],
      [
        'PUT',
        '/v1/webapi/users/password/token',
        {
          token: 'tok1',
          password: null,
          webauthnCreationResponse: creation,
          deviceName: 'passkey',
        },
      ],
    ]);
  });

  it('with second factors off, one step sets the password', async () => {
    const { calls, user } = setup('/web/reset/tok1', { second_factor: 'off' });
    await choosePassword(user, 'Submit');
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/web'));
    expect(calls()[1]).toEqual([
      'PUT',
      '/v1/webapi/users/password/token',
      { token: 'tok1', password: encoded },
    ]);
  });

  it('shows the server refusal, and Back keeps the password typed', async () => {
    const { router, user } = setup('/web/invite/tok1', { second_factor: 'otp' }, (url, init) =>
      init.method === 'PUT'
        ? errorResponse(400, 'password is too common', 'bad_parameter')
        : undefined,
    );
    await choosePassword(user);
    await user.type(await screen.findByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('password is too common')).toBeTruthy();
    expect(assign).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/web/invite/tok1'));
    expect(screen.getByLabelText('Password')).toHaveProperty('value', newPassword);
    expect(screen.queryByText('password is too common')).toBeNull();
  });

  it('reads the link once, whatever the steps (each read rotates the TOTP secret)', async () => {
    const { calls, user } = setup('/web/invite/tok1', { second_factor: 'otp' });
    await choosePassword(user);
    await user.click(await screen.findByRole('button', { name: 'Back' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await screen.findByLabelText('Secret key');
    expect(calls().filter(([method]) => method === 'GET')).toHaveLength(1);
  });

  it('a 404 shows that the link is invalid or has expired', async () => {
    setup('/web/invite/tok1', {}, () => errorResponse(404, 'bad or expired token', 'not_found'));
    expect(await screen.findByText('This link is invalid or has expired.')).toBeTruthy();
  });
});
