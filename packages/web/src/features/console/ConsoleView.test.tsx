import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../test/render';
import { consoleReducer, initConsole, tabTitle, type ConsoleState } from './consoleStore';
import { ConsoleView } from './ConsoleView';

function renderView(state: ConsoleState) {
  const onActivate = vi.fn();
  const onClose = vi.fn();
  const onDuplicate = vi.fn();
  renderWithTheme(
    <ConsoleView
      tabs={state.tabs}
      activeId={state.activeId}
      onActivate={onActivate}
      onClose={onClose}
      onDuplicate={onDuplicate}
      homeHref="/web/cluster/root/nodes"
      renderTab={(tab, active) => (
        <p>
          {tabTitle(tab)} content{active ? ' (active)' : ''}
        </p>
      )}
    />,
  );
  return { onActivate, onClose, onDuplicate };
}

const twoTerminals = () => {
  let state = initConsole({ kind: 'connect', clusterId: 'root', serverId: 'db-1', login: 'root' });
  state = consoleReducer(state, {
    type: 'open',
    target: { kind: 'connect', clusterId: 'root', serverId: 'web-1', login: 'deploy' },
  });
  return consoleReducer(state, { type: 'disconnected', id: 'terminal-1', reason: 'session ended' });
};

describe('ConsoleView', () => {
  it('shows a tab strip with the active tab selected and only its panel visible', () => {
    renderView(twoTerminals());
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((t) => t.textContent)).toEqual(['Servers', 'root@db-1', 'deploy@web-1']);
    expect(tabs.map((t) => t.getAttribute('aria-selected'))).toEqual(['false', 'false', 'true']);
    // Every tab stays mounted (its session lives on); only the active one shows.
    expect(screen.getByRole('tabpanel').textContent).toBe('deploy@web-1 content (active)');
    expect(screen.getAllByRole('tabpanel', { hidden: true })).toHaveLength(3);
    expect(screen.getByRole('tab', { name: 'root@db-1' }).getAttribute('title')).toBe(
      'root@db-1 (disconnected)',
    );
    expect(screen.getByRole('link', { name: 'Postern home' }).getAttribute('href')).toBe(
      '/web/cluster/root/nodes',
    );
  });

  it('clicking a tab activates it; terminals can be closed, Servers cannot', async () => {
    const user = userEvent.setup();
    const { onActivate, onClose } = renderView(twoTerminals());
    await user.click(screen.getByRole('tab', { name: 'Servers' }));
    expect(onActivate).toHaveBeenCalledWith('servers');
    await user.click(screen.getByRole('button', { name: 'Close root@db-1' }));
    expect(onClose).toHaveBeenCalledWith('terminal-1');
    expect(screen.queryByRole('button', { name: 'Close Servers' })).toBeNull();
  });

  it('a terminal that started its own session can be duplicated; Servers and joins cannot', async () => {
    const user = userEvent.setup();
    let state = twoTerminals();
    state = consoleReducer(state, {
      type: 'open',
      target: { kind: 'join', clusterId: 'root', sid: 'abcdef12-3456' },
    });
    const { onDuplicate } = renderView(state);
    await user.click(screen.getByRole('button', { name: 'Duplicate deploy@web-1' }));
    expect(onDuplicate).toHaveBeenCalledWith('terminal-2');
    expect(
      screen
        .getAllByRole('button', { name: /^Duplicate / })
        .map((b) => b.getAttribute('aria-label')),
    ).toEqual(['Duplicate root@db-1', 'Duplicate deploy@web-1']);
  });

  it('arrow keys move between tabs', async () => {
    const user = userEvent.setup();
    const { onActivate } = renderView(twoTerminals());
    screen.getByRole('tab', { name: 'deploy@web-1' }).focus();
    await user.keyboard('{ArrowRight}');
    expect(onActivate).toHaveBeenLastCalledWith('servers');
    await user.keyboard('{ArrowLeft}'); // from the first tab, round to the last
    expect(onActivate).toHaveBeenLastCalledWith('terminal-2');
  });
});
