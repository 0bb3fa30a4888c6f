import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { MfaMethod } from '../../lib/secondFactor';
import { renderWithTheme } from '../../test/render';
import { AddDeviceDialog, type NewDeviceType } from './AddDeviceDialog';
import { mfaDeviceFixtures } from './fixtures';
import { makeDevices } from './makeDevice';
import { RemoveDeviceDialog } from './RemoveDeviceDialog';

function fakeActions() {
  return {
    reauthenticate: vi.fn(async () => 'priv-1'),
    totpChallenge: vi.fn(async () => ({ qrCode: 'data:image/svg+xml,qr', secret: 'SECRET234' })),
    add: vi.fn(async () => undefined),
    remove: vi.fn(async () => undefined),
  };
}

function renderAdd(
  methods: MfaMethod[],
  deviceTypes: NewDeviceType[] = ['totp', 'webauthn', 'passkey'],
) {
  const actions = fakeActions();
  const onClose = vi.fn();
  const onAdded = vi.fn();
  renderWithTheme(
    <AddDeviceDialog
      opened
      onClose={onClose}
      methods={methods}
      deviceTypes={deviceTypes}
      actions={actions}
      onAdded={onAdded}
    />,
  );
  return { user: userEvent.setup(), actions, onClose, onAdded };
}

describe('AddDeviceDialog', () => {
  it('re-authenticates with a code, then adds an authenticator app with its code', async () => {
    const { user, actions, onAdded, onClose } = renderAdd(['otp', 'webauthn']);
    const dialog = screen.getByRole('dialog', { name: 'Add two-factor device' });
    await user.type(within(dialog).getByLabelText('Authenticator code'), '111111');
    await user.click(within(dialog).getByRole('button', { name: 'Verify' }));
    expect(actions.reauthenticate).toHaveBeenCalledWith({ kind: 'otp', code: '111111' });

    expect(await screen.findByText('Choose the kind of device to add.')).toBeTruthy();
    expect(actions.totpChallenge).not.toHaveBeenCalled();
    await user.click(screen.getByRole('radio', { name: 'Authenticator App' }));
    expect(await screen.findByLabelText('Secret key')).toHaveProperty('textContent', 'SECRET234');
    expect(actions.totpChallenge).toHaveBeenCalledWith('priv-1');
    await user.clear(screen.getByLabelText('Device name'));
    await user.type(screen.getByLabelText('Device name'), 'work phone');
    await user.type(screen.getByLabelText('Authenticator code'), '222222');
    await user.click(screen.getByRole('button', { name: 'Add device' }));
    expect(actions.add).toHaveBeenCalledWith('priv-1', {
      kind: 'otp',
      code: '222222',
      deviceName: 'work phone',
    });
    expect(onAdded).toHaveBeenCalledWith('work phone');
    expect(onClose).toHaveBeenCalled();
  });

  it('re-authenticates with a key, then registers a hardware key or a passkey', async () => {
    const { user, actions } = renderAdd(['webauthn']);
    expect(screen.queryByRole('radio')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(actions.reauthenticate).toHaveBeenCalledWith({ kind: 'webauthn' });
    await user.click(await screen.findByRole('radio', { name: 'Hardware Key' }));
    await user.click(screen.getByRole('button', { name: 'Register hardware key' }));
    expect(actions.add).toHaveBeenLastCalledWith('priv-1', {
      kind: 'webauthn',
      usage: 'mfa',
      deviceName: 'hardware-key',
    });
  });

  it('registers a passkey for passwordless sign-in', async () => {
    const { user, actions } = renderAdd(['webauthn'], ['webauthn', 'passkey']);
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await user.click(await screen.findByRole('radio', { name: 'Passkey' }));
    await user.click(screen.getByRole('button', { name: 'Register passkey' }));
    expect(actions.add).toHaveBeenCalledWith('priv-1', {
      kind: 'webauthn',
      usage: 'passwordless',
      deviceName: 'passkey',
    });
  });

  it('a user without devices continues without a second factor', async () => {
    const { user, actions } = renderAdd(['none'], ['webauthn']);
    expect(screen.getByText('You have no two-factor devices yet.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(actions.reauthenticate).toHaveBeenCalledWith({ kind: 'none' });
    expect(await screen.findByRole('button', { name: 'Register hardware key' })).toBeTruthy();
  });

  it('shows errors and stays open', async () => {
    const { user, actions, onClose } = renderAdd(['otp']);
    actions.reauthenticate.mockRejectedValueOnce(new Error('invalid authenticator code'));
    await user.type(screen.getByLabelText('Authenticator code'), '000000');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(
      within(await screen.findByRole('alert')).getByText('invalid authenticator code'),
    ).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
  });
});

describe('RemoveDeviceDialog', () => {
  const device = makeDevices(mfaDeviceFixtures).find((d) => d.name === 'yubikey') ?? null;

  function renderRemove() {
    const actions = fakeActions();
    const onClose = vi.fn();
    const onRemoved = vi.fn();
    renderWithTheme(
      <RemoveDeviceDialog
        device={device}
        onClose={onClose}
        methods={['otp', 'webauthn']}
        actions={actions}
        onRemoved={onRemoved}
      />,
    );
    return { user: userEvent.setup(), actions, onClose, onRemoved };
  }

  it('confirms, re-authenticates and removes', async () => {
    const { user, actions, onRemoved, onClose } = renderRemove();
    const dialog = screen.getByRole('dialog', { name: 'Remove device' });
    expect(within(dialog).getByText('yubikey')).toBeTruthy();
    await user.type(within(dialog).getByLabelText('Authenticator code'), '123456');
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(actions.reauthenticate).toHaveBeenCalledWith({ kind: 'otp', code: '123456' });
    await waitFor(() => expect(actions.remove).toHaveBeenCalledWith('priv-1', 'yubikey'));
    expect(onRemoved).toHaveBeenCalledWith('yubikey');
    expect(onClose).toHaveBeenCalled();
  });

  it("shows the server's refusal (the last device while MFA is required)", async () => {
    const { user, actions, onClose } = renderRemove();
    actions.remove.mockRejectedValueOnce(
      new Error('cannot delete the last MFA device while a second factor is required'),
    );
    await user.click(screen.getByRole('radio', { name: 'Hardware key' }));
    await user.click(screen.getByRole('button', { name: 'Remove' }));
    expect(
      await screen.findByText(
        'cannot delete the last MFA device while a second factor is required',
      ),
    ).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
  });
});
