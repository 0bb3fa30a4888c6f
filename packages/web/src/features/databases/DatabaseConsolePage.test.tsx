import { emptyAcl, terminalMessageTypes as T, type UserAcl } from '@postern/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { presetAcls } from '../../test/userContexts';
import {
  fakeSocketsPerTest,
  fakeXtermPerTest,
  paramsOf,
  renderSignedIn,
} from '../console/terminalPage.testkit';
import { isTraceparent } from '../console/tty/traceparent';

// The SQL console page: the server console's terminal, on the database's console socket.

// xterm does not render in jsdom: the page gets a fake terminal instead.
vi.mock('../console/terminalEngine', async (original) =>
  (await import('../console/fakeEngine')).withFakeXterm(original),
);
const engines = fakeXtermPerTest();

const fakeSockets = fakeSocketsPerTest();
const sockets = fakeSockets.sockets;
const renderSqlConsole = (path: string, acl: UserAcl = presetAcls.access) =>
  renderSignedIn(path, acl);

const firstSocket = () => fakeSockets.nth(1);

describe('the SQL console page', () => {
  it('opens the database’s console socket as the user and database of its URL', async () => {
    const user = userEvent.setup();
    renderSqlConsole('/web/cluster/root/databases/pg/console/alice_db/appdb');
    expect(await screen.findByRole('heading', { name: 'SQL console: pg', level: 1 })).toBeTruthy();
    expect(screen.getByLabelText('Database user').textContent).toBe('alice_db');
    expect(screen.getByLabelText('Database name').textContent).toBe('appdb');
    expect(screen.getByRole('link', { name: 'Postern databases' }).getAttribute('href')).toBe(
      '/web/cluster/root/databases',
    );
    await waitFor(() => expect(document.title).toBe('root • SQL Console'));

    const socket = await firstSocket();
    const url = new URL(socket.url);
    expect(url.protocol).toBe('ws:');
    expect(url.pathname).toBe('/v1/webapi/sites/root/databases/pg/console/ws');
    expect(paramsOf(socket)).toEqual({
      db_user: 'alice_db',
      db_name: 'appdb',
      term: { w: 80, h: 24 },
    });
    expect(isTraceparent(url.searchParams.get('traceparent') ?? '')).toBe(true);
    expect(socket.url).not.toContain('bearer-tok');

    // The terminal protocol: the bearer in the first frame, then envelopes both ways.
    socket.open();
    expect(socket.sent).toEqual([JSON.stringify({ token: 'bearer-tok' })]);
    expect(screen.getByText('Connecting…')).toBeTruthy();
    socket.accept();
    await waitFor(() => expect(screen.queryByText('Connecting…')).toBeNull());

    const engine = engines[0]!;
    expect(engine.mountedIn?.getAttribute('aria-label')).toBe('Terminal');
    expect(engine.options.readOnly).toBe(false);
    socket.receive(T.raw, 'appdb=> ');
    await waitFor(() => expect(engine.plain()).toContain('appdb=> '));
    engine.type('select 1;\r');
    expect(socket.payloads(T.raw)).toEqual(['select 1;\r']);
    engine.fitTo({ cols: 120, rows: 40 });
    expect(socket.payloads(T.resize)).toEqual([
      JSON.stringify({ event: 'resize', width: 120, height: 40, size: '120:40' }),
    ]);
    await waitFor(() => expect(socket.payloads(T.outputAck)).toEqual(['8']));

    // The font buttons are the terminal's, as in the server console.
    await user.click(screen.getByRole('button', { name: 'Increase font size' }));
    await waitFor(() => expect(engine.fontSize).toBe(15));

    // `\q` ends the session as a program that exited 0: neutral, not an error.
    socket.receive(T.sessionEnd, JSON.stringify({ reason: 'exited with code 0' }));
    const status = await screen.findByText('disconnected: exited with code 0');
    expect(status.getAttribute('data-ended')).toBe('normally');
    await waitFor(() => expect(engine.text).toContain('\x1b[2mdisconnected: exited with code 0'));
    expect(socket.closedWith?.code).toBe(1000);
  });

  it('takes the database, user and name from the URL decoded, and encodes them for the socket', async () => {
    renderSqlConsole(
      `/web/cluster/root/databases/orders/console/${encodeURIComponent('o’brien@corp')}/${encodeURIComponent('app db')}`,
    );
    const socket = await firstSocket();
    expect(paramsOf(socket)).toMatchObject({ db_user: 'o’brien@corp', db_name: 'app db' });
    expect(new URL(socket.url).pathname).toBe('/v1/webapi/sites/root/databases/orders/console/ws');
    expect(screen.getByLabelText('Database user').textContent).toBe('o’brien@corp');
  });

  it('a refusal ends the session in red, with the server’s reason', async () => {
    renderSqlConsole('/web/cluster/root/databases/pg/console/postgres/appdb');
    const socket = await firstSocket();
    socket.open();
    socket.receiveText(
      JSON.stringify({
        type: 'create_session_response',
        status: 'error',
        message: 'alice may not connect to pg as database user "postgres"',
      }),
    );
    const status = await screen.findByText(
      'disconnected: alice may not connect to pg as database user "postgres"',
    );
    expect(status.getAttribute('data-ended')).toBe('failed');
    expect(status.getAttribute('style')).toContain('red');
  });

  it('needs the databases flag', async () => {
    renderSqlConsole('/web/cluster/root/databases/pg/console/alice_db/appdb', emptyAcl());
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
    expect(sockets).toHaveLength(0);
  });
});
