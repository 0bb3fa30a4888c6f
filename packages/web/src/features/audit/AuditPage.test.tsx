import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
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
    await user.click(await screen.findByRole('option', { name: 'user.login' }));
    await waitFor(() => expect(requests().at(-1)!.get('include')).toBe('user.login'));
    expect(requests().at(-1)!.get('search')).toBe('alice');
  });
});
