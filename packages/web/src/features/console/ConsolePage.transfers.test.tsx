import { terminalMessageTypes as T } from '@postern/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { nodeFixtures } from '../nodes/fixtures';
import { sessionFixtures } from '../sessions/fixtures';
import { renderConsole } from './consolePage.testkit';
import { fakeSocketsPerTest } from './terminalPage.testkit';

// The console's file transfers from a terminal tab: the calls, the transfer list, the MFA check.

// xterm does not render in jsdom: the console gets a fake terminal instead.
vi.mock('./terminalEngine', async (original) =>
  (await import('./fakeEngine')).withFakeXterm(original),
);

const fakeSockets = fakeSocketsPerTest();
const nextSocket = (count: number) => fakeSockets.nth(count);
const db1 = nodeFixtures[0]!;

describe('the console’s file transfers', () => {
  it('a terminal tab downloads a file with the console credentials and lists the transfer', async () => {
    const user = userEvent.setup();
    renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
    const socket = await nextSocket(1);
    socket.accept();
    const fetchMock = vi.mocked(fetch);
    fetchMock.mockImplementationOnce(async () => Response.json({ required: false }));
    fetchMock.mockImplementationOnce(
      async () => new Response('log lines', { headers: { 'content-length': '9' } }),
    );
    const createObjectURL = vi.fn(() => 'blob:download');
    // jsdom has no object URLs (left stubbed: the console revokes its URL later, on a timer).
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    // jsdom cannot follow a link; the saved name is on the link the console clicks.
    const saved: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      saved.push(this.download);
    });

    await user.click(await screen.findByRole('button', { name: 'Download file' }));
    const dialog = await screen.findByRole('dialog', { name: 'Download file' });
    await user.type(within(dialog).getByRole('textbox', { name: /File path/ }), '/var/log/app.log');
    await user.click(within(dialog).getByRole('button', { name: 'Download' }));

    const row = await screen.findByRole('listitem', { name: 'Download app.log' });
    await waitFor(() => expect(within(row).getByRole('status').textContent).toBe('Done'));
    const [url, init] = fetchMock.mock.calls.at(-1) as [string, RequestInit];
    expect(url).toBe(
      `/v1/webapi/sites/root/nodes/${db1.id}/root/scp?location=%2Fvar%2Flog%2Fapp.log&filename=app.log`,
    );
    expect(init.headers).toMatchObject({ Authorization: 'Bearer bearer-tok' });
    // Not a moderated session: nobody is asked first.
    expect(socket.payloads(T.fileTransferRequest)).toEqual([]);
    expect(createObjectURL).toHaveBeenCalled();
    expect(saved).toEqual(['app.log']);
    click.mockRestore();
  });

  it('asks for the MFA check the roles want before the transfer, once, and sends it to verify', async () => {
    const user = userEvent.setup();
    renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
    (await nextSocket(1)).accept();
    const fetchMock = vi.mocked(fetch);
    for (const body of [
      { required: true },
      { totp_challenge: true },
      { expires: '2026-11-26T12:01:00Z' },
    ]) {
      fetchMock.mockImplementationOnce(async () => Response.json(body));
    }
    fetchMock.mockImplementationOnce(async () => new Response('x'));
    Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:x'), revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    const calls = fetchMock.mock.calls.length;

    await user.click(await screen.findByRole('button', { name: 'Download file' }));
    const dialog = await screen.findByRole('dialog', { name: 'Download file' });
    await user.type(within(dialog).getByRole('textbox', { name: /File path/ }), '/etc/motd');
    await user.click(within(dialog).getByRole('button', { name: 'Download' }));
    await screen.findByRole('dialog', { name: 'Verify it is you' });
    await user.type(screen.getByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    const row = await screen.findByRole('listitem', { name: 'Download motd' });
    await waitFor(() => expect(within(row).getByRole('status').textContent).toBe('Done'));
    const sent = fetchMock.mock.calls
      .slice(calls)
      .map(([url, init]) => [
        String(url).split('?')[0],
        init?.body ? JSON.parse(String(init.body)) : undefined,
      ]);
    expect(sent).toEqual([
      ['/v1/webapi/sites/root/mfa/required', { node: { node_name: db1.id, login: 'root' } }],
      ['/v1/webapi/mfa/session/challenge', { resource: `files:${db1.id}` }],
      [
        '/v1/webapi/mfa/session/verify',
        { resource: `files:${db1.id}`, mfa_response: { totp_code: '123456' } },
      ],
      [`/v1/webapi/sites/root/nodes/${db1.id}/root/scp`, undefined],
    ]);
    click.mockRestore();
  });

  it('a joined session offers no file transfer: the joiner has no login of their own there', async () => {
    const sid = sessionFixtures[0]!.id;
    renderConsole(`/web/cluster/root/console/session/${sid}?mode=observer`);
    const socket = await nextSocket(1);
    socket.accept();
    socket.receive(T.sessionData, JSON.stringify({ session: sessionFixtures[0] }));
    expect(await screen.findByRole('tab', { name: 'root@db-1' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Upload files' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Download file' })).toBeNull();
  });
});
