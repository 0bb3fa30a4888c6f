import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../test/render';
import { userFixtures } from './fixtures';
import { makeUsers } from './makeUser';
import { UsersView, type UserPermissions } from './UsersView';

const all: UserPermissions = { create: true, edit: true, remove: true };

function renderView(can: UserPermissions = all) {
  const handlers = {
    onRetry: vi.fn(),
    onCreate: vi.fn(),
    onEdit: vi.fn(),
    onResetPassword: vi.fn(),
    onDelete: vi.fn(),
  };
  renderWithTheme(
    <UsersView
      attempt={{ status: 'success', data: makeUsers(userFixtures) }}
      can={can}
      {...handlers}
    />,
  );
  return handlers;
}

const rowOf = (name: string) => screen.getByRole('cell', { name }).closest('tr') as HTMLElement;

describe('makeUsers', () => {
  it('sorts users by name and each user’s roles, and names the auth type', () => {
    const [alice, bob] = makeUsers(userFixtures);
    expect(alice).toMatchObject({
      name: 'alice',
      roles: ['access', 'editor'],
      authTypeText: 'Local',
    });
    expect(bob).toMatchObject({ name: 'bob', roles: ['auditor'], authTypeText: 'SSO' });
  });
});

describe('UsersView', () => {
  it('lists name, sorted roles as badges and auth type', () => {
    renderView();
    expect(screen.getByRole('heading', { name: 'Manage Users' })).toBeTruthy();
    expect(
      screen.getAllByRole('columnheader').map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Name', 'Roles', 'Type', 'Actions']);
    const cells = within(rowOf('alice')).getAllByRole('cell');
    expect(cells.slice(0, 3).map((c) => c.textContent)).toEqual(['alice', 'accesseditor', 'Local']);
    expect(within(cells[1] as HTMLElement).getByText('access')).toBeTruthy();
    expect(within(rowOf('bob')).getAllByRole('cell')[2]?.textContent).toBe('SSO');
  });

  it('filters by name, role or type', async () => {
    renderView();
    const user = userEvent.setup();
    const search = screen.getByRole('textbox', { name: 'Search users' });
    await user.type(search, 'auditor');
    expect(screen.queryByRole('cell', { name: 'alice' })).toBeNull();
    expect(screen.getByRole('cell', { name: 'bob' })).toBeTruthy();
    await user.clear(search);
    await user.type(search, 'local');
    expect(screen.getByRole('cell', { name: 'alice' })).toBeTruthy();
    expect(screen.queryByRole('cell', { name: 'bob' })).toBeNull();
    await user.type(search, ' nobody');
    expect(screen.getByText('No users match the search.')).toBeTruthy();
  });

  it('offers Edit, Reset Password and Delete, and only Delete for SSO users', async () => {
    const handlers = renderView();
    const user = userEvent.setup();
    await user.click(within(rowOf('alice')).getByRole('button', { name: 'Options' }));
    const items = await screen.findAllByRole('menuitem', { hidden: true });
    expect(items.map((i) => i.textContent)).toEqual(['Edit', 'Reset Password', 'Delete']);
    await user.click(screen.getByRole('menuitem', { name: 'Reset Password', hidden: true }));
    expect(handlers.onResetPassword).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'alice' }),
    );

    await user.click(within(rowOf('bob')).getByRole('button', { name: 'Options' }));
    const bobItems = await screen.findAllByRole('menuitem', { hidden: true });
    expect(bobItems.map((i) => i.textContent)).toEqual(['Delete']);
  });

  it('shows only what the ACL allows', () => {
    renderView({ create: false, edit: false, remove: false });
    expect(screen.queryByRole('button', { name: 'Create User' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Options' })).toBeNull();
    expect(screen.queryByRole('columnheader', { name: 'Actions' })).toBeNull();
  });

  it('shows a loader, then an error with a retry', async () => {
    const onRetry = vi.fn();
    const props = {
      can: all,
      onRetry,
      onCreate: vi.fn(),
      onEdit: vi.fn(),
      onResetPassword: vi.fn(),
      onDelete: vi.fn(),
    };
    const { rerender } = renderWithTheme(<UsersView attempt={{ status: 'loading' }} {...props} />);
    expect(screen.getByRole('status', { name: 'Loading' })).toBeTruthy();
    rerender(<UsersView attempt={{ status: 'error', message: 'access denied' }} {...props} />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledOnce();
  });
});

describe('a bot’s user', () => {
  const botUser = {
    name: 'bot-deployer',
    roles: ['access'],
    authType: 'local' as const,
    isLocal: true,
    traits: { ...userFixtures[0]!.traits },
    bot: 'deployer',
  };

  it('is typed Bot and offers only Manage Bot, which the bot’s page handles', async () => {
    const onManageBot = vi.fn();
    const handlers = { onRetry: vi.fn(), onCreate: vi.fn(), onEdit: vi.fn() };
    renderWithTheme(
      <UsersView
        attempt={{ status: 'success', data: makeUsers([...userFixtures, botUser]) }}
        can={all}
        {...handlers}
        onResetPassword={vi.fn()}
        onDelete={vi.fn()}
        onManageBot={onManageBot}
      />,
    );
    const row = rowOf('bot-deployer');
    expect(within(row).getByRole('cell', { name: 'Bot' })).toBeTruthy();
    const user = userEvent.setup();
    await user.click(within(row).getByRole('button', { name: 'Options' }));
    expect((await screen.findAllByRole('menuitem')).map((item) => item.textContent)).toEqual([
      'Manage Bot',
    ]);
    await user.click(screen.getByRole('menuitem', { name: 'Manage Bot' }));
    expect(onManageBot).toHaveBeenCalledWith(expect.objectContaining({ bot: 'deployer' }));
  });
});
