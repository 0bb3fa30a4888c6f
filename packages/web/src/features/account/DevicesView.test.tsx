import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../test/render';
import { DevicesView } from './DevicesView';
import { mfaDeviceFixtures } from './fixtures';
import { makeDevices } from './makeDevice';

const devices = makeDevices(mfaDeviceFixtures);

function renderView(attempt: Parameters<typeof DevicesView>[0]['attempt']) {
  const handlers = { onRetry: vi.fn(), onAdd: vi.fn(), onRemove: vi.fn() };
  renderWithTheme(<DevicesView attempt={attempt} {...handlers} />);
  return { user: userEvent.setup(), ...handlers };
}

const cellsOf = (name: string) =>
  within(screen.getByText(name).closest('tr') as HTMLElement)
    .getAllByRole('cell')
    .map((c) => c.textContent);

describe('DevicesView', () => {
  it('lists name, description, registered and last used dates', () => {
    renderView({ status: 'success', data: devices });
    expect(
      screen.getAllByRole('columnheader').map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Name', 'Description', 'Registered', 'Last used', 'Actions']);
    expect(cellsOf('phone')).toEqual([
      'phone',
      'Authenticator App',
      '2024-03-01 10:20:30',
      '2024-03-04 12:00:00',
      'Remove',
    ]);
    expect(cellsOf('laptop')).toEqual([
      'laptoppasskey',
      'Hardware Key',
      '2024-03-03 00:00:00',
      'Never',
      'Remove',
    ]);
  });

  it('adds and removes', async () => {
    const { user, onAdd, onRemove } = renderView({ status: 'success', data: devices });
    await user.click(screen.getByRole('button', { name: 'Add two-factor device' }));
    expect(onAdd).toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Remove yubikey' }));
    expect(onRemove).toHaveBeenCalledWith(expect.objectContaining({ name: 'yubikey' }));
  });

  it('says when there are none', () => {
    renderView({ status: 'success', data: [] });
    expect(screen.getByText('No two-factor devices yet.')).toBeTruthy();
  });

  it('shows an error with a retry', async () => {
    const { user, onRetry } = renderView({ status: 'error', message: 'access denied' });
    expect(within(screen.getByRole('alert')).getByText('access denied')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalled();
  });
});
