import type { UserContext } from '@postern/contracts';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NotificationsProvider } from '../../components/Notifications';
import { pageLocation } from '../../lib/pageLocation';
import { TestTheme } from '../../test/render';
import { userContextFixture } from '../../test/userContexts';
import { UserContextContext } from '../userContext';
import { AssumedRoles } from './AssumedRoles';

const start = new Date('2024-03-01T10:00:00Z');

function renderBadge(overrides: Partial<UserContext>, drop = vi.fn(async () => undefined)) {
  const context = userContextFixture(undefined, overrides);
  render(
    <TestTheme>
      <NotificationsProvider>
        <UserContextContext.Provider value={context}>
          <AssumedRoles drop={drop} />
        </UserContextContext.Provider>
      </NotificationsProvider>
    </TestTheme>,
  );
  return drop;
}

const assumed = {
  accessRequestId: '7a8b9c0d-2222-4e1f-9a2b-3c4d5e6f7a8b',
  assumedRoles: ['dba', 'auditor'],
  accessRequestExpires: '2024-03-01T10:01:05Z',
};

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(start);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('AssumedRoles', () => {
  it('shows nothing without an assumed request', () => {
    renderBadge({});
    expect(screen.queryByRole('status')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Drop' })).toBeNull();
  });

  it('shows the roles and the time left, ticking each second', () => {
    renderBadge(assumed);
    expect(screen.getByRole('status').textContent).toBe('Assumed: dba, auditor · 01:05');
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getByRole('status').textContent).toBe('Assumed: dba, auditor · 01:04');
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.getByRole('status').textContent).toBe('Assumed: dba, auditor · 00:04');
  });

  it('Drop goes back to the base roles', () => {
    const drop = renderBadge(assumed);
    fireEvent.click(screen.getByRole('button', { name: 'Drop' }));
    expect(drop).toHaveBeenCalledTimes(1);
  });

  it('drops the roles by itself once, when the time runs out', async () => {
    const drop = renderBadge(assumed);
    await act(async () => vi.advanceTimersByTime(64_000));
    expect(drop).not.toHaveBeenCalled();
    await act(async () => vi.advanceTimersByTime(3_000));
    expect(screen.getByRole('status').textContent).toBe('Assumed: dba, auditor · 00:00');
    expect(drop).toHaveBeenCalledTimes(1);
  });

  it('reloads the page when dropping fails after the time ran out (the server dropped them)', async () => {
    const assign = vi.spyOn(pageLocation, 'assign').mockImplementation(() => undefined);
    vi.spyOn(pageLocation, 'current').mockReturnValue('/web/requests');
    renderBadge(
      assumed,
      vi.fn(async () => {
        throw new Error('no request assumed');
      }),
    );
    await act(async () => vi.advanceTimersByTime(66_000));
    expect(assign).toHaveBeenCalledWith('/web/requests');
  });
});
