import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { AuditPage } from './AuditPage';
import { auditEventFixtures } from './fixtures';

afterEach(() => vi.unstubAllGlobals());

/** A server with 70 events in two pages, chained by startKey. */
function stubServer() {
  const stub = vi.fn(async (url: string) => {
    const params = new URL(url, 'http://x').searchParams;
    return params.get('startKey') === 'page-2'
      ? jsonResponse({ events: auditEventFixtures(10, 60), startKey: '' })
      : jsonResponse({ events: auditEventFixtures(60), startKey: 'page-2' });
  });
  vi.stubGlobal('fetch', stub);
  const requests = () => stub.mock.calls.map(([url]) => new URL(url, 'http://x').searchParams);
  return { stub, requests };
}

describe('AuditPage (useAuditLog)', () => {
  it('searches the last 7 days, 5000 per request, and follows startKey for more', async () => {
    const { requests } = stubServer();
    const user = userEvent.setup();
    renderPage(<AuditPage />);
    await screen.findByText('1–50 of 60');
    const first = requests()[0]!;
    expect(first.get('limit')).toBe('5000');
    const days = (Date.parse(first.get('to')!) - Date.parse(first.get('from')!)) / 86_400_000;
    expect(days).toBeCloseTo(7);
    expect(first.has('startKey')).toBe(false);

    // Page 2 holds the last 10 loaded events, so the next 5000 are fetched to fill it.
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('51–70 of 70');
    expect(requests()[1]!.get('startKey')).toBe('page-2');
    expect(requests()[1]!.get('from')).toBe(first.get('from'));
    expect((screen.getByRole('button', { name: 'Next page' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
  });

  it('offers the emitted event types by friendly name, grouped by family', async () => {
    stubServer();
    const user = userEvent.setup();
    renderPage(<AuditPage />);
    await screen.findByText('1–50 of 60');
    const typeInput = screen
      .getAllByLabelText('Event types')
      .find((element) => element.tagName === 'INPUT');
    await user.click(typeInput!);
    const sessions = await screen.findByRole('group', { name: 'Sessions' });
    expect(within(sessions).getByRole('option', { name: 'Session Started' })).toBeTruthy();
    const users = screen.getByRole('group', { name: 'Users & Auth' });
    expect(within(users).getByRole('option', { name: 'User Logged In' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Locks' })).toBeTruthy();
    // Raw type names are not shown, nor types of the catalogue Postern never emits.
    expect(screen.queryByRole('option', { name: 'session.start' })).toBeNull();
    expect(screen.queryByRole('option', { name: /SQL Server/ })).toBeNull();
    const databases = screen.getByRole('group', { name: 'Databases' });
    expect(within(databases).getByRole('option', { name: 'Database Query' })).toBeTruthy();
    const kubernetes = screen.getByRole('group', { name: 'Kubernetes' });
    expect(within(kubernetes).getByRole('option', { name: 'Kubernetes Request' })).toBeTruthy();
  });

  it('sends the text search and the type filter to the server', async () => {
    const { requests } = stubServer();
    const user = userEvent.setup();
    renderPage(<AuditPage />);
    await screen.findByText('1–50 of 60');
    await user.type(screen.getByRole('searchbox', { name: 'Search events' }), 'alice{Enter}');
    await waitFor(() => expect(requests().at(-1)!.get('search')).toBe('alice'));
    const typeInput = screen
      .getAllByLabelText('Event types')
      .find((element) => element.tagName === 'INPUT');
    await user.click(typeInput!);
    await user.click(await screen.findByRole('option', { name: 'User Logged In' }));
    await waitFor(() => expect(requests().at(-1)!.get('include')).toBe('user.login'));
    expect(requests().at(-1)!.get('search')).toBe('alice');
  });

  it('links session events to their recording in the player, for who may read recordings', async () => {
    stubServer();
    const context = userContextFixture(
      aclWith({ events: ['list', 'read'], recordedSessions: ['list', 'read'] }),
    );
    renderPage(<AuditPage />, { context });
    await screen.findByText('1–50 of 60');
    const link = screen.getByRole('link', { name: 'Play the recording of session s0' });
    expect(link.getAttribute('href')).toBe('/web/cluster/localhost/session/s0?recordingType=ssh');
    // Logins have no recording.
    expect(screen.getAllByRole('link', { name: /^Play the recording/ })).toHaveLength(17);
  });

  it('shows no recording links to a user who may not read recordings', async () => {
    stubServer();
    renderPage(<AuditPage />, {
      context: userContextFixture(aclWith({ events: ['list', 'read'] })),
    });
    await screen.findByText('1–50 of 60');
    expect(screen.getByText('User [alice] has started a session [s0]')).toBeTruthy();
    expect(screen.queryByRole('link', { name: /^Play the recording/ })).toBeNull();
  });
});
