import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { TestTheme } from '../../test/render';
import { render } from '@testing-library/react';
import { lockFixtures } from './fixtures';
import { LocksView } from './LocksView';
import { makeLocks } from './makeLock';

function renderView(can = { create: true, remove: true }, onDelete = vi.fn()) {
  const router = createMemoryRouter(
    [
      {
        path: '/web/locks',
        element: (
          <LocksView
            attempt={{ status: 'success', data: makeLocks(lockFixtures) }}
            onRetry={vi.fn()}
            can={can}
            onDelete={onDelete}
          />
        ),
      },
    ],
    { initialEntries: ['/web/locks'] },
  );
  render(
    <TestTheme>
      <RouterProvider router={router} />
    </TestTheme>,
  );
  return onDelete;
}

describe('makeLocks', () => {
  it('names the target, formats the times and says Never for no expiry; newest first', () => {
    const [role, user] = makeLocks(lockFixtures);
    expect(role).toMatchObject({
      targetText: 'role: contractors',
      createdAtText: '2024-03-02 10:30:00',
      expiresText: '2024-03-02 18:30:00',
    });
    expect(user).toMatchObject({ targetText: 'user: mallory', expiresText: 'Never' });
  });
});

describe('LocksView', () => {
  it('lists target, message, creator, creation and expiry, with Delete', async () => {
    const onDelete = renderView();
    expect(screen.getByRole('heading', { name: 'Manage Session & Identity Locks' })).toBeTruthy();
    expect(
      screen.getAllByRole('columnheader').map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Target', 'Message', 'Created By', 'Created At', 'Expires', 'Actions']);
    const row = screen.getByRole('cell', { name: 'user: mallory' }).closest('tr') as HTMLElement;
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['user: mallory', 'under review', 'admin', '2024-03-01 10:00:00', 'Never', 'Delete']);
    await userEvent.setup().click(within(row).getByRole('button', { name: 'Delete' }));
    expect(onDelete).toHaveBeenCalledWith(expect.objectContaining({ targetText: 'user: mallory' }));
    expect(screen.getByRole('link', { name: 'Create New Lock' }).getAttribute('href')).toBe(
      '/web/locks/new',
    );
  });

  it('shows only what the ACL allows', () => {
    renderView({ create: false, remove: false });
    expect(screen.queryByRole('link', { name: 'Create New Lock' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(screen.queryByRole('columnheader', { name: 'Actions' })).toBeNull();
  });

  it("links an access request's lock to the request's page", () => {
    const id = '7a8b9c0d-2222-4e1f-9a2b-3c4d5e6f7a8b';
    const requestLock = { ...lockFixtures[1]!, targets: [{ kind: 'access_request', name: id }] };
    const locks = makeLocks([lockFixtures[0]!, requestLock as (typeof lockFixtures)[number]]);
    const router = createMemoryRouter(
      [
        {
          path: '/web/locks',
          element: (
            <LocksView
              attempt={{ status: 'success', data: locks }}
              onRetry={vi.fn()}
              can={{ create: true, remove: true }}
              onDelete={vi.fn()}
            />
          ),
        },
      ],
      { initialEntries: ['/web/locks'] },
    );
    render(
      <TestTheme>
        <RouterProvider router={router} />
      </TestTheme>,
    );
    const link = screen.getByRole('link', { name: `access_request: ${id}` });
    expect(link.getAttribute('href')).toBe(`/web/requests/${id}`);
    // The other kinds stay text.
    expect(screen.getByRole('cell', { name: 'user: mallory' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: /^user:/ })).toBeNull();
  });
});
