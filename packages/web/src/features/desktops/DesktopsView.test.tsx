import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import { renderWithTheme } from '../../test/render';
import { ConnectDesktopMenu, desktopSessionPath } from './ConnectDesktop';
import { DesktopsView } from './DesktopsView';
import { desktopFixtures } from './fixtures';
import { makeDesktop, noFilters } from './makeDesktop';

function renderView(desktops = desktopFixtures) {
  const paging: ListPaging = { pageIndex: 0, canPrev: false, onPrev: vi.fn(), onNext: vi.fn() };
  const onFiltersChange = vi.fn();
  renderWithTheme(
    <MemoryRouter>
      <DesktopsView
        attempt={{
          status: 'success',
          data: {
            desktops: desktops.map(makeDesktop),
            startKey: '',
            totalCount: desktops.length,
          },
        }}
        onRetry={vi.fn()}
        filters={noFilters}
        onFiltersChange={onFiltersChange}
        paging={paging}
        pageSize={15}
        renderConnect={(desktop) => (
          <ConnectDesktopMenu
            desktop={desktop}
            sessionHref={(login) => desktopSessionPath('root', desktop.name, login)}
            active={undefined}
            onOpenChange={vi.fn()}
          />
        )}
      />
    </MemoryRouter>,
  );
  return { onFiltersChange };
}

const rowOf = (name: string) =>
  screen.getByText(name, { selector: 'p' }).closest('tr') as HTMLElement;

describe('DesktopsView', () => {
  it('shows name with status, address and protocol, OS, labels and the logins the roles allow', () => {
    renderView();
    expect(screen.getByRole('heading', { name: 'Desktops', level: 2 })).toBeTruthy();
    expect(screen.getByRole('searchbox', { name: 'Search desktops' })).toBeTruthy();
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    // Name is marked as the default order.
    expect(headers.slice(0, 5)).toEqual(['Name ▲', 'Address', 'OS', 'Labels', 'Logins']);

    const build = within(rowOf('build-box'));
    expect(build.getByText('10.0.0.5')).toBeTruthy();
    expect(build.getByText('VNC')).toBeTruthy();
    expect(build.getByText('Linux')).toBeTruthy();
    expect(build.getByText('env: dev')).toBeTruthy();
    expect(build.getByText('team: ci')).toBeTruthy();
    expect(build.getByText('alice, ops')).toBeTruthy();
    expect(build.queryByText('offline')).toBeNull();

    // Through an agent: no address of its own; no login: said plainly.
    const lab = within(rowOf('lab-7'));
    expect(lab.getByText('Tunnel')).toBeTruthy();
    expect(lab.getByText('offline')).toBeTruthy();
    expect(lab.getByText('none')).toBeTruthy();

    const win = within(rowOf('win-11'));
    expect(win.getByText('win-11.corp.example:3390')).toBeTruthy();
    expect(win.getByText('RDP')).toBeTruthy();
    expect(win.getByText('Windows')).toBeTruthy();
  });

  it('sorts by name, address and OS; a label narrows the list to desktops with it', async () => {
    const user = userEvent.setup();
    const { onFiltersChange } = renderView();
    await user.click(screen.getByRole('button', { name: /OS/ }));
    expect(onFiltersChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ sort: { field: 'os', dir: 'asc' } }),
    );
    await user.click(screen.getByRole('button', { name: /Address/ }));
    expect(onFiltersChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ sort: { field: 'addr', dir: 'asc' } }),
    );
    await user.click(within(rowOf('build-box')).getByText('team: ci'));
    expect(onFiltersChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ query: 'labels["team"] == "ci"' }),
    );
  });

  it('Connect lists the logins as links opening the session page in a new tab', async () => {
    renderView();
    await userEvent
      .setup()
      .click(within(rowOf('build-box')).getByRole('button', { name: 'Connect to build-box' }));
    const items = await screen.findAllByRole('menuitem');
    expect(items.map((i) => [i.textContent, i.getAttribute('href')])).toEqual([
      ['alice', '/web/cluster/root/desktops/build-box/alice'],
      ['ops', '/web/cluster/root/desktops/build-box/ops'],
    ]);
    expect(items[0]!.getAttribute('target')).toBe('_blank');
    expect(items[0]!.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('Connect is disabled, with the reason, without a login', () => {
    renderView();
    const none = within(rowOf('lab-7')).getByRole('button', { name: 'Connect to lab-7' });
    expect(none.getAttribute('aria-disabled')).toBe('true');
    expect(none.getAttribute('aria-description')).toBe(
      'Your roles allow no login on this desktop: ask an admin for one.',
    );
  });

  it('Connect opens an RDP desktop in the browser too (the proxy serves it as VNC)', async () => {
    renderView();
    await userEvent
      .setup()
      .click(within(rowOf('win-11')).getByRole('button', { name: 'Connect to win-11' }));
    const items = await screen.findAllByRole('menuitem');
    expect(items.map((i) => [i.textContent, i.getAttribute('href')])).toEqual([
      ['Administrator', '/web/cluster/root/desktops/win-11/Administrator'],
    ]);
  });

  it('shows how to add a desktop when there is none', () => {
    renderView([]);
    expect(screen.getByRole('heading', { name: 'No desktops yet' })).toBeTruthy();
    const yaml = screen.getByText(/kind: desktop/).textContent ?? '';
    for (const line of ['addr: 10.0.0.5:5900', 'protocol: vnc', 'os: Linux', 'vnc_password:']) {
      expect(yaml).toContain(line);
    }
    expect(screen.getByText('postern create -f desktop.yaml')).toBeTruthy();
    expect(screen.getByText('desktops:')).toBeTruthy();
    expect(screen.getByText(/postern agent .*--desktop NAME=vnc:\/\/host:5900/)).toBeTruthy();
  });
});
