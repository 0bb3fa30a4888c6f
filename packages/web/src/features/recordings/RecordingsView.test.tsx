import { recordingRow, type RecordingRow } from '@postern/contracts';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ComponentProps } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../../lib/format';
import { TestTheme } from '../../test/render';
import { sessionEndFixtures } from './fixtures';
import type { RecordingsFilter } from './RecordingsFilters';
import { RecordingsView } from './RecordingsView';

const filter: RecordingsFilter = {
  preset: '7d',
  customFrom: '2026-11-19T00:00',
  customTo: '2026-11-20T00:00',
  search: '',
};

const rowsOf = (count: number) => sessionEndFixtures(count).map(recordingRow);

/** The view under a router, since Play is a link. */
function renderView(more: Partial<ComponentProps<typeof RecordingsView>> = {}) {
  const props: ComponentProps<typeof RecordingsView> = {
    filter,
    onFilterChange: vi.fn(),
    attempt: { status: 'success', data: rowsOf(5) },
    onRetry: vi.fn(),
    hasMore: false,
    loadingMore: false,
    onLoadMore: vi.fn(),
    playHref: (row: RecordingRow) => `/play/${row.sid}`,
    ...more,
  };
  const router = createMemoryRouter([{ path: '/', element: <RecordingsView {...props} /> }]);
  render(
    <TestTheme>
      <RouterProvider router={router} />
    </TestTheme>,
  );
  return props;
}

const table = () => screen.getByRole('table', { name: 'Session Recordings' });
const bodyRows = () => within(table()).getAllByRole('row').slice(1);

describe('RecordingsView', () => {
  it('shows type, description, login, users, host, created and duration for each recording', () => {
    renderView();
    expect(
      within(table())
        .getAllByRole('columnheader')
        .map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Type', 'Description', 'Login', 'Users', 'Hostname', 'Created', 'Duration']);
    const [ssh, kube, desktop, batch, unrecorded] = bodyRows();
    expect(within(ssh!).getByRole('img', { name: 'SSH session' })).toBeTruthy();
    expect(within(ssh!).getByText('root@web-0')).toBeTruthy();
    expect(within(ssh!).getByText('root', { exact: true })).toBeTruthy();
    expect(within(ssh!).getByText('alice, bob')).toBeTruthy();
    expect(within(ssh!).getByText('web-0')).toBeTruthy();
    expect(within(ssh!).getByText('01:00')).toBeTruthy();
    const created = formatDateTime(new Date('2026-11-20T10:00:00Z'));
    expect(within(ssh!).getByText(created)).toBeTruthy();
    expect(within(kube!).getByRole('img', { name: 'Kubernetes session' })).toBeTruthy();
    expect(within(kube!).getByText('kube-1')).toBeTruthy();
    expect(within(desktop!).getByRole('img', { name: 'Desktop session' })).toBeTruthy();
    expect(within(desktop!).getByText('carol')).toBeTruthy();
    // A desktop session has no OS login: its description is the desktop alone.
    expect(within(desktop!).getAllByText('desk-2')).toHaveLength(2);
    expect(within(batch!).getByText('non-interactive')).toBeTruthy();
    expect(within(unrecorded!).getByText('recording disabled')).toBeTruthy();
  });

  it('offers Play, linking to the player, only for playable recordings', () => {
    renderView();
    const links = screen.getAllByRole('link', { name: /^Play recording of / });
    expect(links.map((link) => link.getAttribute('aria-label'))).toEqual([
      'Play recording of web-0',
      'Play recording of kube-1',
      'Play recording of desk-2',
    ]);
    expect(links[0]!.getAttribute('href')).toBe('/play/sid-0');
    const [, , , batch, unrecorded] = bodyRows();
    expect(within(batch!).queryByRole('link')).toBeNull();
    expect(within(unrecorded!).queryByRole('link')).toBeNull();
  });

  it('sorts every loaded recording by duration, from page 1', async () => {
    const user = userEvent.setup();
    renderView({ attempt: { status: 'success', data: rowsOf(60) } });
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await user.click(screen.getByRole('button', { name: 'Duration' }));
    expect(screen.getByText('1–50 of 60')).toBeTruthy();
    expect(within(bodyRows()[0]!).getByText('01:00')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: /Duration/ }));
    expect(within(bodyRows()[0]!).getByText('1:00:00')).toBeTruthy();
  });

  it('pages 50 at a time and asks the server for more once a page is not full', async () => {
    const user = userEvent.setup();
    const props = renderView({ attempt: { status: 'success', data: rowsOf(60) }, hasMore: true });
    expect(bodyRows()).toHaveLength(50);
    expect(props.onLoadMore).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(props.onLoadMore).toHaveBeenCalledTimes(1);
  });

  it('counts the loaded recordings, singular for one', () => {
    renderView({ attempt: { status: 'success', data: rowsOf(1) } });
    expect(screen.getByText('1 recording')).toBeTruthy();
  });

  it('counts them in the plural, and says when the range has more', () => {
    renderView({ attempt: { status: 'success', data: rowsOf(5) }, hasMore: true });
    expect(screen.getByText('5 recordings loaded, more in this range')).toBeTruthy();
  });

  it('says so when the range has no recordings', () => {
    renderView({ attempt: { status: 'success', data: [] } });
    expect(screen.getByText('No recordings in this range')).toBeTruthy();
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('shows a failed search with a retry', async () => {
    const user = userEvent.setup();
    const props = renderView({ attempt: { status: 'error', message: 'access denied' } });
    expect(within(screen.getByRole('alert')).getByText('access denied')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(props.onRetry).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('table')).toBeNull();
  });
});
