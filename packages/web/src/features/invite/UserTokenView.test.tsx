import type { AuthConfig } from '@postern/contracts';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { configWithAuth } from '../../test/authConfig';
import { renderWithTheme } from '../../test/render';
import { userTokenFixture } from './fixtures';
import { UserTokenView, type UserTokenViewProps } from './UserTokenView';

function renderView(auth: Partial<AuthConfig>, props: Partial<UserTokenViewProps> = {}) {
  const handlers = {
    onRetry: vi.fn(),
    onChoose: vi.fn(),
    onBack: vi.fn(),
    onSubmit: vi.fn(),
  };
  renderWithTheme(
    <UserTokenView
      kind="invite"
      auth={configWithAuth(auth).auth}
      load={{ status: 'success', data: userTokenFixture }}
      step="password"
      choice={undefined}
      attempt={{ status: 'idle' }}
      {...handlers}
      {...props}
    />,
  );
  return { user: userEvent.setup(), ...handlers };
}

const password = () => screen.getByLabelText('Password');
const confirm = () => screen.getByLabelText('Confirm password');

describe('UserTokenView: loading and errors', () => {
  it.each([
    ['invite', 'Invite'],
    ['reset', 'Password Reset'],
  ] as const)('an unknown or expired %s link says so', (kind, title) => {
    renderView({}, { kind, load: { status: 'invalid' } });
    expect(screen.getByRole('heading', { name: title })).toBeTruthy();
    expect(screen.getByText('This link is invalid or has expired.')).toBeTruthy();
    // The way forward, the same whoever the link was for (the server does not say).
    expect(screen.getByText(/To get a new one, ask an admin, or run/).textContent).toBe(
      'To get a new one, ask an admin, or run postern users reset NAME with the same data dir on the Postern host (for the first admin: postern users reset admin).',
    );
    expect(screen.queryByLabelText('Password')).toBeNull();
  });

  it('other errors show the message with a retry', async () => {
    const { user, onRetry } = renderView({}, { load: { status: 'error', message: 'boom' } });
    expect(within(screen.getByRole('alert')).getByText('boom')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalled();
  });

  it('shows a loader while loading', () => {
    renderView({}, { load: { status: 'loading' } });
    expect(screen.getByRole('status', { name: 'Loading' })).toBeTruthy();
  });
});

describe('UserTokenView: the password step', () => {
  it('greets the invited user and checks length and confirmation', async () => {
    const { user, onChoose } = renderView({ second_factor: 'otp' });
    expect(screen.getByRole('heading', { name: 'Welcome to Postern' })).toBeTruthy();
    expect(screen.getByText('alice')).toBeTruthy();
    expect(screen.getByText('At least 12 characters')).toBeTruthy();
    await user.type(password(), 'short');
    await user.type(confirm(), 'short');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByText('Password must be at least 12 characters')).toBeTruthy();
    await user.type(password(), '-but-longer-now');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByText('Passwords do not match')).toBeTruthy();
    expect(onChoose).not.toHaveBeenCalled();
    await user.type(confirm(), '-but-longer-now');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(onChoose).toHaveBeenCalledWith({ password: 'short-but-longer-now' });
  });

  it('with second factors off, the password is all: Submit completes the link', async () => {
    const { user, onSubmit } = renderView({ second_factor: 'off' }, { kind: 'reset' });
    expect(screen.getByRole('heading', { name: 'Reset your password' })).toBeTruthy();
    await user.type(password(), 'a-long-enough-password');
    await user.type(confirm(), 'a-long-enough-password');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledWith('a-long-enough-password', { kind: 'none' });
  });

  it('offers a passkey instead of a password when passwordless is allowed', async () => {
    const { user, onChoose } = renderView({ second_factor: 'on', allowPasswordless: true });
    await user.click(screen.getByRole('button', { name: 'Use a passkey instead of a password' }));
    expect(onChoose).toHaveBeenCalledWith({ passwordless: true });
  });

  it('does not offer a passkey otherwise', () => {
    renderView({ second_factor: 'on' });
    expect(screen.queryByRole('button', { name: /passkey/ })).toBeNull();
  });
});

describe('UserTokenView: the second step', () => {
  const step2 = { step: 'continue' as const, choice: { password: 'a-long-enough-password' } };

  it('authenticator app: the QR code, the secret for manual entry, then the code', async () => {
    const { user, onSubmit } = renderView({ second_factor: 'otp' }, step2);
    expect(screen.getByRole('heading', { name: 'Set up two-factor authentication' })).toBeTruthy();
    const qr = screen.getByRole('img', { name: 'QR code for your authenticator app' });
    expect(qr.getAttribute('src')).toBe(userTokenFixture.qrCode);
    expect(screen.getByTestId('totp-secret').textContent).toBe('JBSWY3DPEHPK3PXP');
    expect(screen.getByLabelText('Secret key')).toBe(screen.getByTestId('totp-secret'));
    await user.type(screen.getByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledWith('a-long-enough-password', {
      kind: 'otp',
      code: '123456',
    });
  });

  it('hardware key: a device name, then the browser registers the key', async () => {
    const { user, onSubmit } = renderView({ second_factor: 'webauthn' }, step2);
    const name = screen.getByLabelText('Device name');
    expect(name).toHaveProperty('value', 'hardware-key');
    await user.clear(name);
    await user.type(name, 'yubikey');
    await user.click(screen.getByRole('button', { name: 'Register hardware key' }));
    expect(onSubmit).toHaveBeenCalledWith('a-long-enough-password', {
      kind: 'webauthn',
      usage: 'mfa',
      deviceName: 'yubikey',
    });
  });

  it('second_factor on: the user picks the kind, from the preferred one', async () => {
    const { user } = renderView({ second_factor: 'on', preferredLocalMfa: 'webauthn' }, step2);
    expect(screen.getByRole('button', { name: 'Register hardware key' })).toBeTruthy();
    await user.click(screen.getByRole('radio', { name: 'Authenticator app' }));
    expect(screen.getByLabelText('Authenticator code')).toBeTruthy();
  });

  it('passwordless: registers a passkey with no password', async () => {
    const { user, onSubmit, onBack } = renderView(
      { second_factor: 'on', allowPasswordless: true },
      { step: 'continue', choice: { passwordless: true } },
    );
    expect(screen.getByRole('heading', { name: 'Register a passkey' })).toBeTruthy();
    expect(screen.getByLabelText('Device name')).toHaveProperty('value', 'passkey');
    await user.click(screen.getByRole('button', { name: 'Register passkey' }));
    expect(onSubmit).toHaveBeenCalledWith(null, {
      kind: 'webauthn',
      usage: 'passwordless',
      deviceName: 'passkey',
    });
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(onBack).toHaveBeenCalled();
  });

  it('shows the server message', () => {
    renderView(
      { second_factor: 'otp' },
      { ...step2, attempt: { status: 'error', message: 'invalid authenticator code' } },
    );
    expect(within(screen.getByRole('alert')).getByText('invalid authenticator code')).toBeTruthy();
  });
});
