import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { MfaMethod } from '../../lib/secondFactor';
import { renderWithTheme } from '../../test/render';
import { ChangePasswordView } from './ChangePasswordView';

function renderView(methods: MfaMethod[], onSubmit = vi.fn(async () => undefined)) {
  renderWithTheme(<ChangePasswordView methods={methods} onSubmit={onSubmit} />);
  return { user: userEvent.setup(), onSubmit };
}

async function fill(user: ReturnType<typeof userEvent.setup>, confirm = 'new-password-123') {
  await user.type(screen.getByLabelText('Current password'), 'old-password');
  await user.type(screen.getByLabelText('New password'), 'new-password-123');
  await user.type(screen.getByLabelText('Confirm new password'), confirm);
}

describe('ChangePasswordView', () => {
  it('checks the new password before sending anything', async () => {
    const { user, onSubmit } = renderView(['otp']);
    await user.click(screen.getByRole('button', { name: 'Update password' }));
    expect(screen.getByText('Current password is required')).toBeTruthy();
    expect(screen.getByText('Password must be at least 12 characters')).toBeTruthy();
    expect(screen.getByText('Authenticator code is required')).toBeTruthy();
    await fill(user, 'something-else');
    await user.click(screen.getByRole('button', { name: 'Update password' }));
    expect(screen.getByText('Passwords do not match')).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('sends old and new password with the authenticator code, then confirms and clears', async () => {
    const { user, onSubmit } = renderView(['otp']);
    await fill(user);
    await user.type(screen.getByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Update password' }));
    expect(onSubmit).toHaveBeenCalledWith({
      oldPassword: 'old-password',
      newPassword: 'new-password-123',
      secondFactor: { kind: 'otp', code: '123456' },
    });
    expect(await screen.findByText('Your password has been changed.')).toBeTruthy();
    expect(screen.getByLabelText('Current password')).toHaveProperty('value', '');
  });

  it('lets a user with both kinds of device pick the hardware key', async () => {
    const { user, onSubmit } = renderView(['otp', 'webauthn']);
    await user.click(screen.getByRole('radio', { name: 'Hardware key' }));
    expect(screen.queryByLabelText('Authenticator code')).toBeNull();
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Update password' }));
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ secondFactor: { kind: 'webauthn' } }),
    );
  });

  it('asks for no second factor when none applies', async () => {
    const { user, onSubmit } = renderView(['none']);
    expect(screen.queryByRole('radio')).toBeNull();
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Update password' }));
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ secondFactor: { kind: 'none' } }),
    );
  });

  it('shows the server message', async () => {
    const { user } = renderView(
      ['none'],
      vi.fn(async () => Promise.reject(new Error('invalid credentials'))),
    );
    await fill(user);
    await user.click(screen.getByRole('button', { name: 'Update password' }));
    expect(within(await screen.findByRole('alert')).getByText('invalid credentials')).toBeTruthy();
  });
});
