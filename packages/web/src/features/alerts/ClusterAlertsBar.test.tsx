import type { ClusterAlert } from '@postern/contracts';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { storageKeys } from '../../lib/storageKeys';
import { ClusterAlertsBar } from './ClusterAlertsBar';

const alert = (name: string, severity: number, message: string, link?: string): ClusterAlert => ({
  kind: 'cluster_alert',
  version: 'v1',
  metadata: { name, labels: link ? { 'teleport.internal/link': link } : {} },
  spec: { severity, message, created: '2026-11-27T10:00:00Z' },
});

const maintenance = alert('a-1', 10, 'Maintenance at 22:00', 'https://status.example.com');
const lunch = alert('a-2', 0, 'Lunch is served');

function renderBar(alerts: ClusterAlert[]) {
  const fetchStub = vi.fn(async (url: string) =>
    url === '/v1/webapi/sites/localhost/alerts'
      ? jsonResponse({ alerts })
      : jsonResponse({ message: 'unexpected' }, 500),
  );
  vi.stubGlobal('fetch', fetchStub);
  return renderPage(<ClusterAlertsBar />);
}

beforeEach(() => localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

describe('ClusterAlertsBar', () => {
  it('shows each alert, a danger one as an alert, with its link opening apart', async () => {
    renderBar([maintenance, lunch]);
    const danger = await screen.findByRole('alert');
    expect(danger.textContent).toContain('Maintenance at 22:00');
    const more = within(danger).getByRole('link', { name: 'More' });
    expect(more.getAttribute('href')).toBe('https://status.example.com');
    expect(more.getAttribute('rel')).toBe('noopener noreferrer');
    expect(screen.getByRole('status').textContent).toContain('Lunch is served');
  });

  it('keeps a closed alert closed on this browser, across sign-ins', async () => {
    const first = renderBar([maintenance, lunch]);
    const user = userEvent.setup();
    const danger = await screen.findByRole('alert');
    await user.click(within(danger).getByRole('button', { name: 'Dismiss alert' }));
    expect(screen.queryByText('Maintenance at 22:00')).toBeNull();
    expect(JSON.parse(localStorage.getItem(storageKeys.dismissedAlerts)!)).toEqual(['a-1']);
    first.unmount();

    // Signed in again: still closed; the other one stays.
    renderBar([maintenance, lunch]);
    expect(await screen.findByText('Lunch is served')).toBeTruthy();
    expect(screen.queryByText('Maintenance at 22:00')).toBeNull();
  });

  it('forgets closed alerts that were taken down', async () => {
    localStorage.setItem(storageKeys.dismissedAlerts, JSON.stringify(['gone-1']));
    renderBar([lunch]);
    const user = userEvent.setup();
    await user.click(
      within(await screen.findByRole('status')).getByRole('button', { name: 'Dismiss alert' }),
    );
    expect(JSON.parse(localStorage.getItem(storageKeys.dismissedAlerts)!)).toEqual(['a-2']);
  });

  it('shows nothing when no alert is posted', async () => {
    const { container } = renderBar([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(container.querySelector('[aria-label="Cluster alerts"]')).toBeNull();
  });
});
