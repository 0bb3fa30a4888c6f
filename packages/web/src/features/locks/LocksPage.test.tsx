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

describe('LocksPage and bot instances', () => {
  const instanceId = '5b0c4a3e-9a57-4d53-a7c1-2f3b8f0c1a11';
  const instanceLock = {
    ...lockFixtures[0]!,
    name: 'lock-bot-copy',
    targets: [{ kind: 'bot_instance', name: instanceId }],
  };
  const runner = {
    name: 'ci-runner',
    user: 'bot-ci-runner',
    roles: ['ops'],
    logins: [],
    createdAt: '2026-11-29T08:00:00.000Z',
    joinMethod: 'token',
    instances: [
      {
        id: instanceId,
        generation: 2,
        joinedAt: '2026-11-29T08:01:00.000Z',
        renewedAt: '2026-11-29T09:01:00.000Z',
        certExpires: '2026-11-29T10:01:00.000Z',
      },
    ],
    tokens: [],
  };
  const stubApi = () =>
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) =>
        url.startsWith('/v1/webapi/sites/localhost/machine-id/bot')
          ? jsonResponse({ items: [runner], startKey: '', totalCount: 1 })
          : jsonResponse([instanceLock]),
      ),
    );

  it("links a bot instance's lock to its bot in Manage Bots, for whoever may list bots", async () => {
    stubApi();
    renderPage(<LocksPage />, {
      context: userContextFixture(aclWith({ lock: 'all', bots: ['list'] })),
    });
    const link = await screen.findByRole('link', { name: `bot_instance: ${instanceId}` });
    expect(link.getAttribute('href')).toBe('/web/bots?search=ci-runner');
  });

  it('shows it as text to someone who may not list bots', async () => {
    stubApi();
    renderPage(<LocksPage />, { context: userContextFixture(aclWith({ lock: 'all' })) });
    await screen.findByRole('cell', { name: `bot_instance: ${instanceId}` });
    expect(screen.queryByRole('link', { name: /^bot_instance:/ })).toBeNull();
  });
});
