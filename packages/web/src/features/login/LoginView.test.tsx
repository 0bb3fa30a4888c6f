import { lockedRequestHint, type AuthConfig } from '@postern/contracts';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { configWithAuth } from '../../test/authConfig';
import { renderWithTheme } from '../../test/render';
import { LoginView, type LoginViewProps } from './LoginView';

const github = {
  name: 'github',
  displayName: 'GitHub',
  type: 'github' as const,
  url: '/v1/webapi/github/login/web?connector_id=:providerName&redirect_url=:redirect',
};

function renderView(auth: Partial<AuthConfig>, props: Partial<LoginViewProps> = {}) {
  const handlers = { onLogin: vi.fn(), onPasskey: vi.fn(), onProvider: vi.fn() };
  renderWithTheme(
    <LoginView
      auth={configWithAuth(auth).auth}
      attempt={{ status: 'idle' }}
      {...handlers}
      {...props}
    />,
  );
  return { user: userEvent.setup(), ...handlers };
}

// The password field's own 'Toggle password visibility' button is not a sign-in method.
/** A button's text without what screen readers skip (the provider kind icons). */
const spokenText = (el: HTMLElement) => {
  const copy = el.cloneNode(true) as HTMLElement;
  copy.querySelectorAll('[aria-hidden="true"]').forEach((hidden) => hidden.remove());
  return copy.textContent;
};

const buttonNames = () =>
  screen
    .getAllByRole('button')
    .map((b) => b.getAttribute('aria-label') ?? spokenText(b))
    .filter((name) => name !== 'Toggle password visibility');

describe('LoginView', () => {
  it('shows the message of the day first; the form only once acknowledged', async () => {
    const { user } = renderView({ motd: 'Authorised use only.\nActivity is logged.' });
    expect(screen.getByText(/Authorised use only\./)).toBeTruthy();
    expect(screen.queryByLabelText('Username')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Acknowledge' }));
    expect(screen.queryByText(/Authorised use only\./)).toBeNull();
    expect(screen.getByLabelText('Username')).toBeTruthy();
  });

  it('with second_factor otp asks for username, password and an authenticator code', async () => {
    const { user, onLogin } = renderView({ second_factor: 'otp' });
    await user.type(screen.getByLabelText('Username'), ' alice ');
    await user.type(screen.getByLabelText('Password'), 'pässword-long');
    await user.type(screen.getByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(onLogin).toHaveBeenCalledWith({
      user: 'alice',
      password: 'pässword-long',
      method: 'otp',
      code: '123456',
    });
    expect(screen.queryByRole('radio')).toBeNull();
  });

  it('with second_factor webauthn has no code field and signs in with a hardware key', async () => {
    const { user, onLogin } = renderView({ second_factor: 'webauthn' });
    expect(screen.queryByLabelText('Authenticator code')).toBeNull();
    await user.type(screen.getByLabelText('Username'), 'bob');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(onLogin).toHaveBeenCalledWith(
      expect.objectContaining({ user: 'bob', method: 'webauthn' }),
    );
  });

  it('with second_factor on lets the user pick, starting from the authenticator app', async () => {
    // The server prefers keys when both are allowed; the form still starts with the app.
    const { user, onLogin } = renderView({ second_factor: 'on', preferredLocalMfa: 'webauthn' });
    expect(screen.getByRole('radio', { name: 'Authenticator app' })).toHaveProperty(
      'checked',
      true,
    );
    await user.click(screen.getByRole('radio', { name: 'Hardware key' }));
    expect(screen.queryByLabelText('Authenticator code')).toBeNull();
    await user.click(screen.getByRole('radio', { name: 'Authenticator app' }));
    await user.type(screen.getByLabelText('Username'), 'carol');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.type(screen.getByLabelText('Authenticator code'), '654321');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(onLogin).toHaveBeenCalledWith(
      expect.objectContaining({ method: 'otp', code: '654321' }),
    );
  });

  it('starts with the second factor this browser last signed in with, if still offered', () => {
    renderView({ second_factor: 'on' }, { lastMfaMethod: 'webauthn' });
    expect(screen.getByRole('radio', { name: 'Hardware key' })).toHaveProperty('checked', true);
    cleanup();
    // The cluster no longer allows keys: the remembered choice gives way.
    renderView({ second_factor: 'otp' }, { lastMfaMethod: 'webauthn' });
    expect(screen.getByLabelText('Authenticator code')).toBeTruthy();
    expect(screen.queryByRole('radio')).toBeNull();
  });

  it('shows the lock that ended the last session, as plain text', async () => {
    const onDismissLockedNotice = vi.fn();
    const { user } = renderView(
      {},
      { lockedNotice: '<b>under investigation</b>', onDismissLockedNotice },
    );
    const notice = screen.getByRole('region', { name: 'Access locked' });
    expect(notice.textContent).toContain('Access locked: <b>under investigation</b>');
    expect(notice.querySelector('b')).toBeNull();
    expect(notice.textContent).toContain('once an administrator removes the lock');
    await user.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(onDismissLockedNotice).toHaveBeenCalled();
  });

  it('says a lock on an assumed request lets a new sign-in go on', () => {
    const lockedNotice = `granted in error (access request 7a8b is locked: ${lockedRequestHint})`;
    renderView({}, { lockedNotice });
    const notice = screen.getByRole('region', { name: 'Access locked' });
    expect(notice.textContent).toContain('Signing in again starts one without it.');
    expect(notice.textContent).not.toContain('once an administrator removes the lock');
  });

  it('with second_factor optional also offers no second factor', () => {
    renderView({ second_factor: 'optional' });
    expect(screen.getAllByRole('radio').map((r) => r.getAttribute('value'))).toEqual([
      'otp',
      'webauthn',
      'none',
    ]);
  });

  it('says what is missing instead of submitting', async () => {
    const { user, onLogin } = renderView({ second_factor: 'otp' });
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByText('Username is required')).toBeTruthy();
    expect(screen.getByText('Password is required')).toBeTruthy();
    expect(screen.getByText('Authenticator code is required')).toBeTruthy();
    expect(onLogin).not.toHaveBeenCalled();
  });

  it('shows the server message in an alert', () => {
    renderView({}, { attempt: { status: 'error', message: 'invalid credentials' } });
    expect(within(screen.getByRole('alert')).getByText('invalid credentials')).toBeTruthy();
  });

  it('local first, then passkey and SSO under Other sign-in options', async () => {
    const { user, onPasskey, onProvider } = renderView({
      allowPasswordless: true,
      providers: [github],
    });
    expect(buttonNames()).toEqual(['Sign in', 'Sign in with a passkey', 'Sign in with GitHub']);
    expect(screen.getByText('Other sign-in options')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    expect(onPasskey).toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Sign in with GitHub' }));
    expect(onProvider).toHaveBeenCalledWith(github);
  });

  it('passwordless primary puts the passkey button first', () => {
    renderView({ localConnectorName: 'passwordless' });
    expect(buttonNames()[0]).toBe('Sign in with a passkey');
    expect(screen.getByText('Other sign-in options')).toBeTruthy();
  });

  it('SSO primary puts the providers first, and no divider without other options', () => {
    renderView({ authType: 'github', providers: [github], localAuthEnabled: false });
    expect(buttonNames()).toEqual(['Sign in with GitHub']);
    expect(screen.queryByText('Other sign-in options')).toBeNull();
    expect(screen.queryByLabelText('Username')).toBeNull();
  });

  it('SSO primary with local sign-in on shows the providers, then the password form', () => {
    renderView({ authType: 'oidc', providers: [github] });
    expect(buttonNames()).toEqual(['Sign in with GitHub', 'Sign in']);
    expect(screen.getByText('Other sign-in options')).toBeTruthy();
    expect(screen.getByLabelText('Username')).toBeTruthy();
  });
});
