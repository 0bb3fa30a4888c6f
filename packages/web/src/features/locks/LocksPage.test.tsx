import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { lockFixtures } from './fixtures';
import { LocksPage } from './LocksPage';

afterEach(() => vi.unstubAllGlobals());

describe('LocksPage', () => {
  it('lists the proxy cluster’s locks and deletes one after a confirmation', async () => {
    const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) =>
      url === '/v1/webapi/sites/localhost/locks' && (init.method ?? 'GET') === 'GET'
        ? jsonResponse(lockFixtures)
        : jsonResponse({ message: 'ok' }),
    );
    vi.stubGlobal('fetch', fetchStub);
    renderPage(<LocksPage />, { context: userContextFixture(aclWith({ lock: 'all' })) });
    const user = userEvent.setup();
    const row = (await screen.findByRole('cell', { name: 'user: mallory' })).closest(
      'tr',
    ) as HTMLElement;
    await user.click(within(row).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Lock' });
    expect(within(dialog).getByText('user: mallory')).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fetchStub).toHaveBeenCalledWith(
      `/v1/webapi/sites/localhost/locks/${lockFixtures[0]?.name}`,
      expect.objectContaining({ method: 'DELETE' }),
    );
  });

  it('links Create New Lock only with lock create and edit (the newLocks flag)', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse(lockFixtures)),
    );
    renderPage(<LocksPage />, {
      context: userContextFixture(aclWith({ lock: ['list', 'create'] })),
    });
    await screen.findByRole('cell', { name: 'user: mallory' });
    expect(screen.queryByRole('link', { name: 'Create New Lock' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });
});
