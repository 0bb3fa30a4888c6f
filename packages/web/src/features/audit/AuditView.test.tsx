import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { auditTypeFamilies, type AuditEventJson } from '@postern/contracts';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../test/render';
import type { AuditFilter } from './auditRange';
import { AuditView } from './AuditView';
import { auditEventFixtures } from './fixtures';

const filter: AuditFilter = {
  preset: '7d',
  customFrom: '2026-11-19T00:00',
  customTo: '2026-11-20T00:00',
  types: [],
  search: '',
};

function renderView(events: AuditEventJson[], more: Partial<Parameters<typeof AuditView>[0]> = {}) {
  const props = {
    filter,
    onFilterChange: vi.fn(),
    typeFamilies: auditTypeFamilies,
    attempt: { status: 'success' as const, data: events },
    onRetry: vi.fn(),
    hasMore: false,
    loadingMore: false,
    onLoadMore: vi.fn(),
    onExport: vi.fn(),
    exporting: false,
    ...more,
  };
  renderWithTheme(<AuditView {...props} />);
  return props;
}

const bodyRows = () => screen.getAllByRole('row').slice(1);

describe('AuditView', () => {
  it('shows severity, type, message, user and time for each event', () => {
    renderView(auditEventFixtures(3));
    const [start, login, failed] = bodyRows();
    expect(within(start!).getByRole('img', { name: 'Info' })).toBeTruthy();
    expect(within(start!).getByText('Session Started')).toBeTruthy();
    expect(within(start!).getByText('User [alice] has started a session [s0]')).toBeTruthy();
    expect(within(login!).getByText('Local user [bob] successfully logged in')).toBeTruthy();
    expect(within(failed!).getByRole('img', { name: 'Warning' })).toBeTruthy();
    expect(within(failed!).getByText('Local user [eve] login failure [bad password]')).toBeTruthy();
    expect(within(failed!).getByText('eve')).toBeTruthy();
  });

  it('shows 50 rows a page, and asks the server for more once a page is not full', async () => {
    const user = userEvent.setup();
    const props = renderView(auditEventFixtures(100), { hasMore: true });
    expect(bodyRows()).toHaveLength(50);
    expect(screen.getByText('1–50 of 100')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(bodyRows()).toHaveLength(50);
    expect(props.onLoadMore).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(props.onLoadMore).toHaveBeenCalledTimes(1);
  });

  it('stops at the last page when the server has nothing more', () => {
    renderView(auditEventFixtures(20));
    expect((screen.getByRole('button', { name: 'Next page' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
  });

  it('opens the raw JSON of an event', async () => {
    const user = userEvent.setup();
    renderView(auditEventFixtures(3));
    await user.click(screen.getAllByRole('button', { name: 'Local Login Failed' })[0]!);
    const dialog = await screen.findByRole('dialog', { name: 'Local Login Failed (T1000W)' });
    expect(within(dialog).getByLabelText('Event JSON').textContent).toContain(
      '"error": "bad password"',
    );
  });

  it('offers JSON lines and CSV exports', async () => {
    const user = userEvent.setup();
    const props = renderView([]);
    expect(screen.getByText('No events in this range')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Export the events of this range' }));
    await user.click(await screen.findByRole('menuitem', { name: 'CSV' }));
    expect(props.onExport).toHaveBeenCalledWith('csv');
  });

  it('shows custom from/to inputs only for a custom range', () => {
    renderView([], { filter: { ...filter, preset: 'custom' } });
    // Typed and shown in 24-hour time, like every time the console writes.
    expect((screen.getByLabelText('From') as HTMLInputElement).value).toBe('2026-11-19 00:00');
    expect(screen.getByLabelText('To')).toBeTruthy();
  });
});
