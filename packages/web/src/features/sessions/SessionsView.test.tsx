import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { clientConfigSchema } from '@postern/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { renderWithTheme } from '../../test/render';
import { renderPage } from '../../test/renderPage';
import { sessionFixtures } from './fixtures';
import { makeSession, makeSessions, stripPort } from './makeSession';
import { SessionsPage } from './SessionsPage';
import { SessionsView } from './SessionsView';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const now = Date.parse('2024-03-01T11:05:30Z');

describe('makeSession', () => {
  it('maps the JSON: resource from the hostname, users from the parties, port stripped', () => {
    expect(makeSession(sessionFixtures[0]!, now)).toMatchObject({
      kind: 'ssh',
      sid: sessionFixtures[0]!.id,
      login: 'root',
      resourceName: 'db-1',
      serverId: sessionFixtures[0]!.server_id,
      clusterId: 'root',
      users: ['alice', 'bob'],
      addr: '10.0.0.12',
      createdText: '2024-03-01 10:00:00',
      durationText: '1:05:30',
      participantModes: ['observer', 'peer'],
    });
  });

  it('lists newest first', () => {
    expect(makeSessions(sessionFixtures, now).map((s) => s.resourceName)).toEqual([
      'db-1',
      'web-1',
    ]);
  });

  it('strips ports', () => {
    expect(['10.0.0.1:22', '[::1]:22', 'host', '', '::1'].map(stripPort)).toEqual([
      '10.0.0.1',
      '::1',
      'host',
      '',
      '::1',
    ]);
  });
});

function renderView(joinHref?: (sid: string, mode: string) => string) {
  renderWithTheme(
    <SessionsView
      attempt={{ status: 'success', data: makeSessions(sessionFixtures, now) }}
      onRetry={vi.fn()}
      joinHref={joinHref && ((s, mode) => joinHref(s.sid, mode))}
    />,
  );
}

const rowOf = (resource: string) => screen.getByText(resource).closest('tr') as HTMLElement;

describe('SessionsView', () => {
  it('shows kind, resource, login, users, creation and duration', () => {
    renderView((sid, mode) => `/join/${sid}/${mode}`);
    expect(
      screen.getAllByRole('columnheader').map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Type', 'Resource', 'Login', 'Users', 'Created', 'Duration', 'Actions']);
    const row = within(rowOf('db-1'));
    expect(row.getByRole('img', { name: 'SSH session' })).toBeTruthy();
    expect(row.getByText('10.0.0.12')).toBeTruthy();
    expect(row.getByText('root')).toBeTruthy();
    expect(row.getByText('alice')).toBeTruthy();
    expect(row.getByText('bob')).toBeTruthy();
    expect(row.getByText('2024-03-01 10:00:00')).toBeTruthy();
    expect(row.getByText('1:05:30')).toBeTruthy();
  });

  it('offers exactly the modes the viewer may join in, each in a new tab', async () => {
    renderView((sid, mode) => `/web/cluster/root/console/session/${sid}?mode=${mode}`);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Join session on db-1' }));
    const items = await screen.findAllByRole('menuitem');
    expect(items.map((i) => i.textContent)).toEqual([
      'As an observer (read-only)',
      'As a peer (full input)',
    ]);
    expect(items[0]?.getAttribute('href')).toBe(
      `/web/cluster/root/console/session/${sessionFixtures[0]!.id}?mode=observer`,
    );
    expect(items[0]?.getAttribute('target')).toBe('_blank');
    // No modes: no Join button at all.
    expect(within(rowOf('web-1')).queryByRole('button', { name: /Join/ })).toBeNull();
  });

  it('marks a moderated session with a badge, and only that one', () => {
    const [first, second] = sessionFixtures;
    const sessions = makeSessions([{ ...first!, moderated: true }, second!], now);
    renderWithTheme(
      <SessionsView attempt={{ status: 'success', data: sessions }} onRetry={vi.fn()} />,
    );
    expect(within(rowOf('db-1')).getByText('Moderated')).toBeTruthy();
    expect(within(rowOf('web-1')).queryByText('Moderated')).toBeNull();
    expect(screen.getAllByText('Moderated')).toHaveLength(1);
  });

  it('marks a user whose every connection dropped as lost, while the session waits for them', () => {
    const [first] = sessionFixtures;
    const lost = { connection_lost_at: '2024-03-01T11:05:00Z' };
    const [alice, bob] = first!.parties;
    // bob's only party is lost; alice has a second party still connected, so she is not.
    const parties = [
      { ...alice!, ...lost },
      { ...alice!, id: 'p1b' },
      { ...bob!, ...lost },
    ];
    const [session] = makeSessions([{ ...first!, parties }], now);
    expect(session!.connectionLost).toEqual(['bob']);
    renderWithTheme(
      <SessionsView attempt={{ status: 'success', data: [session!] }} onRetry={vi.fn()} />,
    );
    const row = within(rowOf('db-1'));
    expect(row.getByText('bob: connection lost')).toBeTruthy();
    expect(row.getByText('alice')).toBeTruthy();
    expect(row.queryByText('alice: connection lost')).toBeNull();
  });

  it('without joining, there is no Join column', () => {
    renderView();
    expect(screen.queryByRole('columnheader', { name: 'Actions' })).toBeNull();
  });

  it('says so when nothing is live', () => {
    renderWithTheme(<SessionsView attempt={{ status: 'success', data: [] }} onRetry={vi.fn()} />);
    expect(screen.getByText('No active sessions')).toBeTruthy();
  });
});

describe('SessionsPage', () => {
  it('loads the cluster’s sessions, polls every 5 s, and links joins to the console', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const stub = vi.fn(async () => jsonResponse({ sessions: sessionFixtures }));
    vi.stubGlobal('fetch', stub);
    renderPage(<SessionsPage />);
    await screen.findByText('db-1');
    expect(stub).toHaveBeenCalledWith('/v1/webapi/sites/localhost/sessions', expect.anything());
    const before = stub.mock.calls.length;
    await vi.advanceTimersByTimeAsync(5000);
    await waitFor(() => expect(stub.mock.calls.length).toBeGreaterThan(before));
    vi.useRealTimers();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Join session on db-1' }));
    const peer = await screen.findByRole('menuitem', { name: 'As a peer (full input)' });
    expect(peer.getAttribute('href')).toBe(
      `/web/cluster/localhost/console/session/${sessionFixtures[0]!.id}?mode=peer`,
    );
  });

  it('offers no joining when the proxy cannot join sessions', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse({ sessions: sessionFixtures })),
    );
    renderPage(<SessionsPage />, { config: clientConfigSchema.parse({ canJoinSessions: false }) });
    await screen.findByText('db-1');
    expect(screen.queryByRole('button', { name: /Join/ })).toBeNull();
  });
});
