import { emptyAcl, terminalMessageTypes as T } from '@postern/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { terminalFonts } from '../../lib/consoleSettings';
import { presetAcls } from '../../test/userContexts';
import { nodeFixtures } from '../nodes/fixtures';
import { sessionFixtures } from '../sessions/fixtures';
import { fontSizeStorageKey } from './fontSize';
import type { FakeSocket } from './tty/fakeSocket';
import { renderConsole } from './consolePage.testkit';
import { fakeSocketsPerTest, fakeXtermPerTest } from './terminalPage.testkit';
import { isTraceparent } from './tty/traceparent';

// xterm does not render in jsdom: the console gets a fake terminal instead.
vi.mock('./terminalEngine', async (original) =>
  (await import('./fakeEngine')).withFakeXterm(original),
);
const engines = fakeXtermPerTest();

const fakeSockets = fakeSocketsPerTest();
const sockets = fakeSockets.sockets;
const db1 = nodeFixtures[0]!;
const web1 = nodeFixtures[1]!;

const nextSocket = (count: number) => fakeSockets.nth(count);

const tabNames = () => screen.getAllByRole('tab').map((t) => t.textContent);

describe('the console', () => {
  it('a connect URL opens a terminal tab; the URL follows tabs; switching keeps sessions', async () => {
    const user = userEvent.setup();
    const router = renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
    expect(await screen.findByRole('tab', { name: `root@${db1.id}`, selected: true })).toBeTruthy();
    const socket = await nextSocket(1);

    const url = new URL(socket.url);
    expect(url.pathname).toBe('/v1/webapi/sites/root/connect/ws');
    expect(JSON.parse(url.searchParams.get('params') ?? '')).toEqual({
      server_id: db1.id,
      login: 'root',
      term: { w: 80, h: 24 },
    });
    expect(isTraceparent(url.searchParams.get('traceparent') ?? '')).toBe(true);
    expect(socket.url).not.toContain('bearer-tok');

    socket.open();
    expect(socket.sent).toEqual([JSON.stringify({ token: 'bearer-tok' })]);
    expect(screen.getByText('Connecting…')).toBeTruthy();
    socket.accept();
    await waitFor(() => expect(screen.queryByText('Connecting…')).toBeNull());

    const engine = engines[0]!;
    expect(engine.mountedIn?.getAttribute('aria-label')).toBe('Terminal');
    engine.type('ls\r');
    expect(socket.payloads(T.raw)).toEqual(['ls\r']);
    engine.fitTo({ cols: 100, rows: 30 });
    expect(socket.payloads(T.resize)).toHaveLength(1);
    socket.receive(T.raw, 'hello wörld\r\n');
    await waitFor(() => expect(engine.plain()).toContain('hello wörld'));
    await waitFor(() => expect(socket.payloads(T.outputAck)).toEqual(['14']));

    socket.receive(T.sessionData, JSON.stringify({ session: sessionFixtures[0] }));
    expect(await screen.findByRole('tab', { name: 'root@db-1' })).toBeTruthy();
    expect(router.state.location.pathname).toBe(`/web/cluster/root/console/node/${db1.id}/root`);

    // The Servers tab: the URL follows, the terminal lives on.
    await user.click(screen.getByRole('tab', { name: 'Servers' }));
    await waitFor(() =>
      expect(router.state.location.pathname).toBe('/web/cluster/root/console/nodes'),
    );
    expect(engine.disposed).toBe(false);
    expect(socket.closedWith).toBeUndefined();

    // Connecting from the Servers tab opens a terminal tab here, not a browser tab.
    await user.click(await screen.findByRole('button', { name: 'Connect to web-1' }));
    await user.click(await screen.findByRole('menuitem', { name: 'deploy' }));
    expect(await screen.findByRole('tab', { name: 'deploy@web-1', selected: true })).toBeTruthy();
    await waitFor(() =>
      expect(router.state.location.pathname).toBe(
        `/web/cluster/root/console/node/${web1.id}/deploy`,
      ),
    );
    expect(tabNames()).toEqual(['Servers', 'root@db-1', 'deploy@web-1']);
    await nextSocket(2);

    await user.click(screen.getByRole('tab', { name: 'root@db-1' }));
    await waitFor(() =>
      expect(router.state.location.pathname).toBe(`/web/cluster/root/console/node/${db1.id}/root`),
    );

    // Closing a tab closes its socket with 1000.
    await user.click(screen.getByRole('button', { name: 'Close root@db-1' }));
    expect(socket.closedWith?.code).toBe(1000);
    expect(engine.disposed).toBe(true);
    expect(tabNames()).toEqual(['Servers', 'deploy@web-1']);
    expect(screen.getByRole('tab', { name: 'Servers' }).getAttribute('aria-selected')).toBe('true');
    await waitFor(() =>
      expect(router.state.location.pathname).toBe('/web/cluster/root/console/nodes'),
    );
    expect(sockets[1]!.closedWith).toBeUndefined();
  });

  it('an observer sees the parties and notices, types nothing, and sees the session end', async () => {
    const sid = sessionFixtures[0]!.id;
    renderConsole(`/web/cluster/root/console/session/${sid}?mode=observer`);
    const socket = await nextSocket(1);
    expect(JSON.parse(new URL(socket.url).searchParams.get('params') ?? '')).toEqual({
      server_id: '',
      login: '',
      term: { w: 80, h: 24 },
      sid,
      mode: 'observer',
    });
    socket.accept();
    await waitFor(() => expect(socket.envelopes().map((e) => e.type)).toEqual([T.readyToJoin]));
    expect(await screen.findByText('Observing (read-only)')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Paste' })).toBeNull();

    const engine = engines[0]!;
    expect(engine.options.readOnly).toBe(true);
    engine.type('whoami\r');
    engine.fitTo({ cols: 120, rows: 50 });
    expect(socket.envelopes().map((e) => e.type)).toEqual([T.readyToJoin]);

    socket.receive(T.sessionData, JSON.stringify({ session: sessionFixtures[0] }));
    expect(await screen.findByRole('tab', { name: 'root@db-1' })).toBeTruthy();
    expect(screen.getByLabelText('Participants').textContent).toBe(
      'In session: alice (peer), bob (observer)',
    );
    // The owner's connection drops: the session waits for it, and says so.
    const [alice, bob] = sessionFixtures[0]!.parties;
    const lost = { ...alice!, connection_lost_at: '2024-03-01T10:21:00Z' };
    const waiting = { ...sessionFixtures[0]!, parties: [lost, bob!] };
    socket.receive(T.sessionData, JSON.stringify({ session: waiting }));
    await waitFor(() =>
      expect(screen.getByLabelText('Participants').textContent).toBe(
        'In session: alice (peer, connection lost), bob (observer)',
      ),
    );
    socket.receive(
      T.audit,
      JSON.stringify({ event: 'session.join', user: 'carol', mode: 'observer' }),
    );
    socket.receive(T.audit, JSON.stringify({ event: 'resize', size: '132:43', user: 'alice' }));
    await waitFor(() => expect(engine.plain()).toContain('[carol joined as observer]'));
    expect(engine.text).toContain('\x1b[2m[carol joined as observer]');
    expect(engine.currentSize).toEqual({ cols: 132, rows: 43 });

    socket.receive(T.sessionEnd);
    const status = await screen.findByText('disconnected: session ended');
    expect(status.closest('[role="toolbar"]')).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'root@db-1' }).getAttribute('title')).toBe(
      'root@db-1 (disconnected)',
    );
    await waitFor(() => expect(engine.text).toContain('\x1b[31mdisconnected: session ended'));
    expect(socket.closedWith?.code).toBe(1000);
  });

  it('a program that exits 0 ends the tab in a neutral colour, not in red', async () => {
    renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
    const socket = await nextSocket(1);
    socket.accept();
    socket.receive(T.sessionData, JSON.stringify({ session: sessionFixtures[0] }));
    const tabTitle = (await screen.findByRole('tab', { name: 'root@db-1' })).firstElementChild!;
    socket.receive(T.sessionEnd, JSON.stringify({ reason: 'exited with code 0' }));
    const status = await screen.findByText('disconnected: exited with code 0');
    expect(status.getAttribute('data-ended')).toBe('normally');
    expect(status.getAttribute('style')).not.toContain('red');
    expect(tabTitle.getAttribute('style')).not.toContain('red');
    const engine = engines[0]!;
    await waitFor(() => expect(engine.text).toContain('\x1b[2mdisconnected: exited with code 0'));
  });

  it('a program that exits non-zero ends the tab in red', async () => {
    renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
    const socket = await nextSocket(1);
    socket.accept();
    socket.receive(T.sessionData, JSON.stringify({ session: sessionFixtures[0] }));
    const tabTitle = (await screen.findByRole('tab', { name: 'root@db-1' })).firstElementChild!;
    socket.receive(T.sessionEnd, JSON.stringify({ reason: 'exited with code 2' }));
    const status = await screen.findByText('disconnected: exited with code 2');
    expect(status.getAttribute('data-ended')).toBe('failed');
    expect(status.getAttribute('style')).toContain('red');
    expect(tabTitle.getAttribute('style')).toContain('red');
    const engine = engines[0]!;
    await waitFor(() => expect(engine.text).toContain('\x1b[31mdisconnected: exited with code 2'));
  });

  it('a dropped connection resumes the same session in the same terminal', async () => {
    renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
    const socket = await nextSocket(1);
    socket.accept();
    const key = { sid: sessionFixtures[0]!.id, key: 'k1', grace_ms: 60_000 };
    socket.receive(T.resumeKey, JSON.stringify(key));
    socket.receive(T.raw, 'before ');
    socket.serverClose(1006, '');
    expect(await screen.findByText('Connection lost: resuming the session…')).toBeTruthy();
    const again = await nextSocket(2);
    again.open();
    expect(JSON.parse(again.sent[0] as string)).toMatchObject({
      resume: { sid: key.sid, key: 'k1', received: 7 },
    });
    again.accept();
    again.receive(T.raw, 'after');
    const engine = engines[0]!;
    await waitFor(() => expect(engine.plain()).toContain('before after'));
    await waitFor(() =>
      expect(screen.queryByText('Connection lost: resuming the session…')).toBeNull(),
    );
    expect(screen.queryByRole('button', { name: 'Reconnect' })).toBeNull();
    expect(engines).toHaveLength(1); // the same terminal, not a new one
  });

  it('a page closed while resuming gives the session up with its key', async () => {
    renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
    const socket = await nextSocket(1);
    socket.accept();
    const key = { sid: sessionFixtures[0]!.id, key: 'k1', grace_ms: 60_000 };
    socket.receive(T.resumeKey, JSON.stringify(key));
    const leaves = () =>
      vi
        .mocked(fetch)
        .mock.calls.filter(([url]) => String(url).endsWith('/leave'))
        .map(([url, init]) => ({ url, init }));
    window.dispatchEvent(new Event('pagehide')); // an open socket's own close says it
    expect(leaves()).toEqual([]);

    socket.serverClose(1006, '');
    expect(await screen.findByText('Connection lost: resuming the session…')).toBeTruthy();
    window.dispatchEvent(new Event('pagehide'));
    await waitFor(() => expect(leaves()).toHaveLength(1));
    const [{ url, init }] = leaves() as [{ url: string; init: RequestInit }];
    expect(url).toBe(`/v1/webapi/terminal/sessions/${key.sid}/leave`);
    expect(init).toMatchObject({ method: 'POST', keepalive: true, body: '{"key":"k1"}' });
    expect(new Headers(init.headers).get('Authorization')).toBe('Bearer bearer-tok');
  });

  describe('when the proxy goes away', () => {
    // The proxy shuts down (its session end, then 1001), closes with 1001, or dies (1006).
    const goneAway: [string, (socket: FakeSocket) => void, string][] = [
      [
        'shuts down',
        (socket) =>
          socket.receive(T.sessionEnd, JSON.stringify({ reason: 'the proxy is shutting down' })),
        'disconnected: the proxy is shutting down',
      ],
      [
        'closes with 1001',
        (socket) => socket.serverClose(1001, ''),
        'disconnected: connection closed (code 1001)',
      ],
      [
        'dies (an abnormal close)',
        (socket) => socket.serverClose(1006, ''),
        'disconnected: connection closed (code 1006)',
      ],
    ];

    it.each(goneAway)('the proxy %s: the tab offers to reconnect', async (_, goAway, status) => {
      renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
      const socket = await nextSocket(1);
      socket.accept();
      goAway(socket);
      expect((await screen.findByText(status)).getAttribute('data-ended')).toBe('failed');
      expect(screen.getByRole('button', { name: 'Reconnect' })).toBeTruthy();
    });

    it.each(['exited with code 0', 'terminated by moderator bob', 'locked: under review'])(
      'a session that ended (%s) offers no reconnect',
      async (reason) => {
        renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
        const socket = await nextSocket(1);
        socket.accept();
        socket.receive(T.sessionEnd, JSON.stringify({ reason }));
        expect(await screen.findByText(`disconnected: ${reason}`)).toBeTruthy();
        expect(screen.queryByRole('button', { name: 'Reconnect' })).toBeNull();
      },
    );

    it('Reconnect starts a new session on the same server and login, in the same tab', async () => {
      const user = userEvent.setup();
      const router = renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
      const first = await nextSocket(1);
      first.accept();
      first.receive(T.sessionData, JSON.stringify({ session: sessionFixtures[0] }));
      expect(await screen.findByRole('tab', { name: 'root@db-1' })).toBeTruthy();
      first.receive(T.raw, 'before the crash\r\n');
      await waitFor(() => expect(engines[0]!.plain()).toContain('before the crash'));
      first.serverClose(1006, '');

      await user.click(await screen.findByRole('button', { name: 'Reconnect' }));
      const second = await nextSocket(2);
      // The same server and login, as a new session (no sid of the old one's).
      expect(JSON.parse(new URL(second.url).searchParams.get('params') ?? '')).toEqual({
        server_id: db1.id,
        login: 'root',
        term: { w: 80, h: 24 },
      });
      expect(engines[0]!.disposed).toBe(true);
      expect(screen.getByText('Connecting…')).toBeTruthy();
      expect(screen.queryByRole('button', { name: 'Reconnect' })).toBeNull();
      second.open();
      expect(second.sent).toEqual([JSON.stringify({ token: 'bearer-tok' })]);
      second.accept();
      await waitFor(() => expect(screen.queryByText('Connecting…')).toBeNull());
      expect(screen.queryByRole('status')).toBeNull();

      // The tab works again, on the new socket and a new terminal.
      const engine = engines[1]!;
      engine.type('echo again\r');
      expect(second.payloads(T.raw)).toEqual(['echo again\r']);
      second.receive(T.raw, 'again\r\n');
      await waitFor(() => expect(engine.plain()).toContain('again'));
      expect(engine.plain()).not.toContain('before the crash');
      expect(tabNames()).toEqual(['Servers', 'root@db-1']);
      expect(router.state.location.pathname).toBe(`/web/cluster/root/console/node/${db1.id}/root`);
    });
  });

  it('font size, find, copy and paste', async () => {
    const user = userEvent.setup();
    renderConsole(`/web/cluster/root/console/node/${db1.id}/root`, presetAcls.access, 5000);
    const socket = await nextSocket(1);
    socket.accept();
    const engine = engines[0]!;
    expect(engine.options).toEqual({
      fontSize: 14,
      fontFamily: terminalFonts.system.css,
      scrollback: 5000,
      readOnly: false,
      moderator: false,
    });

    await user.click(screen.getByRole('button', { name: 'Increase font size' }));
    await user.click(screen.getByRole('button', { name: 'Increase font size' }));
    await waitFor(() => expect(engine.fontSize).toBe(16));
    expect(localStorage.getItem(fontSizeStorageKey)).toBe('16');
    await user.click(screen.getByRole('button', { name: 'Decrease font size' }));
    await waitFor(() => expect(engine.fontSize).toBe(15));

    socket.receive(T.raw, 'needle in the haystack\r\n');
    await waitFor(() => expect(engine.plain()).toContain('needle'));
    engine.press('find');
    const find = await screen.findByRole('textbox', { name: 'Find' });
    await user.type(find, 'nothing here{Enter}');
    expect(await screen.findByText('No matches')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Close find' }));
    expect(screen.queryByRole('search', { name: 'Find in terminal' })).toBeNull();

    engine.selection = 'selected text';
    engine.press('copy');
    await waitFor(async () => expect(await navigator.clipboard.readText()).toBe('selected text'));
    await navigator.clipboard.writeText('echo pasted');
    engine.press('paste');
    await waitFor(() => expect(socket.payloads(T.raw)).toEqual(['echo pasted']));
  });

  it('right-click opens the terminal menu instead of the browser’s', async () => {
    const user = userEvent.setup();
    renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
    (await nextSocket(1)).accept();
    await user.pointer({
      keys: '[MouseRight]',
      target: screen.getByRole('region', { name: 'Terminal' }),
    });
    const menu = await screen.findByRole('menu');
    const items = await within(menu).findAllByRole('menuitem');
    expect(items.map((i) => i.textContent)).toEqual([
      'Copy',
      'Paste',
      'Find…',
      'Larger text',
      'Smaller text',
    ]);
  });

  it('/console lands on the Servers tab at console/nodes', async () => {
    const router = renderConsole('/web/cluster/root/console');
    expect(await screen.findByRole('tab', { name: 'Servers', selected: true })).toBeTruthy();
    await waitFor(() =>
      expect(router.state.location.pathname).toBe('/web/cluster/root/console/nodes'),
    );
    expect(await screen.findByText('db-1')).toBeTruthy();
    expect(sockets).toHaveLength(0);
  });

  it('needs the nodes or the activeSessions flag', async () => {
    renderConsole('/web/cluster/root/console/nodes', emptyAcl());
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
  });

  it('the Servers tab says so without the nodes flag (a join-only user)', async () => {
    renderConsole('/web/cluster/root/console/nodes', presetAcls.auditor);
    expect(await screen.findByText('You are not allowed to list servers.')).toBeTruthy();
  });
});
