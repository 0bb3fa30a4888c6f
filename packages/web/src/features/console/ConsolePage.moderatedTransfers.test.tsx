import {
  terminalMessageTypes as T,
  type ActiveSessionJson,
  type FileTransferRequestEvent,
  type FileTransferRequestFrame,
} from '@postern/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { nodeFixtures } from '../nodes/fixtures';
import { sessionFixtures } from '../sessions/fixtures';
import { renderConsole } from './consolePage.testkit';
import { fakeSocketsPerTest } from './terminalPage.testkit';
import type { FakeSocket } from './tty/fakeSocket';

// File transfers in a moderated session (docs/file-transfer.md, "Moderated sessions"), from the
// console's side: the owner's tab asks on its terminal socket and waits for the approval; the
// other participants' tabs show the request with Approve and Deny.

// xterm does not render in jsdom: the console gets a fake terminal instead.
vi.mock('./terminalEngine', async (original) =>
  (await import('./fakeEngine')).withFakeXterm(original),
);

const fakeSockets = fakeSocketsPerTest();
const db1 = nodeFixtures[0]!;
const session: ActiveSessionJson = { ...sessionFixtures[0]!, moderated: true };
const sid = session.id;

/** An `a` event of a request's life, as the server sends it to every participant. */
const transferEvent = (over: Partial<FileTransferRequestEvent>): FileTransferRequestEvent => ({
  event: 'file_transfer_request',
  requestId: 'req-1',
  requester: 'alice',
  location: '/var/log/app.log',
  download: true,
  approvers: [],
  ...over,
});
const send = (socket: FakeSocket, event: FileTransferRequestEvent) =>
  socket.receive(T.audit, JSON.stringify(event));
const requestsSent = (socket: FakeSocket) =>
  socket
    .payloads(T.fileTransferRequest)
    .map((payload) => JSON.parse(payload) as FileTransferRequestFrame);
/** The tab's own id for the `n`th request it sent (from 1), which the server echoes. */
const sentId = (socket: FakeSocket, n: number) => requestsSent(socket)[n - 1]?.clientRequestId;

/** alice's own tab on db-1, its socket open on a moderated session. */
async function ownerTab() {
  renderConsole(`/web/cluster/root/console/node/${db1.id}/root`);
  const socket = await fakeSockets.nth(1);
  socket.accept();
  socket.receive(T.sessionData, JSON.stringify({ session }));
  return socket;
}

/** A tab that joined alice's moderated session in `mode`. */
async function joinedTab(mode: 'moderator' | 'observer' | 'peer') {
  renderConsole(`/web/cluster/root/console/session/${sid}?mode=${mode}`);
  const socket = await fakeSockets.nth(1);
  socket.accept();
  socket.receive(T.sessionData, JSON.stringify({ session }));
  await screen.findByRole('tab', { name: 'root@db-1' });
  return socket;
}

async function downloadFrom(user: ReturnType<typeof userEvent.setup>, remotePath: string) {
  await user.click(await screen.findByRole('button', { name: 'Download file' }));
  const dialog = await screen.findByRole('dialog', { name: 'Download file' });
  await user.type(within(dialog).getByRole('textbox', { name: /File path/ }), remotePath);
  await user.click(within(dialog).getByRole('button', { name: 'Download' }));
}

const statusOf = (row: HTMLElement) => within(row).getByRole('status').textContent;

describe('moderated file transfers, in the owner’s tab', () => {
  it('asks first, waits, and downloads with the approval’s ids once it is final', async () => {
    const user = userEvent.setup();
    const socket = await ownerTab();
    const fetchMock = vi.mocked(fetch);
    Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:x'), revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});

    await downloadFrom(user, '/var/log/app.log');
    const row = await screen.findByRole('listitem', { name: 'Download app.log' });
    await waitFor(() => expect(statusOf(row)).toBe('Waiting for a moderator to approve'));
    expect(requestsSent(socket)).toEqual([
      {
        event: 'file_transfer_request',
        download: true,
        location: '/var/log/app.log',
        clientRequestId: expect.any(String),
      },
    ]);
    expect(within(row).getByRole('button', { name: 'Cancel' })).toBeTruthy();

    const scpCalls = () =>
      fetchMock.mock.calls.map(([url]) => String(url)).filter((url) => url.includes('/scp?'));
    send(socket, transferEvent({ clientRequestId: sentId(socket, 1) }));
    send(socket, transferEvent({ event: 'file_transfer_request_approve', approvers: ['bob'] }));
    // One approval of several: still waiting, nothing fetched.
    expect(statusOf(row)).toBe('Waiting for a moderator to approve');
    expect(scpCalls()).toEqual([]);

    fetchMock.mockImplementationOnce(async () => Response.json({ required: false }));
    fetchMock.mockImplementationOnce(async () => new Response('log lines'));
    send(
      socket,
      transferEvent({
        event: 'file_transfer_request_approve',
        approvers: ['bob', 'erin'],
        approved: true,
      }),
    );
    await waitFor(() => expect(statusOf(row)).toBe('Done'));
    expect(scpCalls()).toEqual([
      `/v1/webapi/sites/root/nodes/${db1.id}/root/scp?location=%2Fvar%2Flog%2Fapp.log&filename=app.log` +
        `&moderatedSessionId=${sid}&fileTransferRequestId=req-1`,
    ]);
    // Nobody in the owner's tab is asked to approve its own request.
    expect(screen.queryByRole('list', { name: 'File transfer requests' })).toBeNull();
    click.mockRestore();
  });

  it('a denial fails the upload with who denied it; a refused request fails with the reason', async () => {
    const user = userEvent.setup();
    const socket = await ownerTab();
    const fetchMock = vi.mocked(fetch);
    const calls = fetchMock.mock.calls.length;

    await user.click(await screen.findByRole('button', { name: 'Upload files' }));
    const dialog = await screen.findByRole('dialog', { name: 'Upload files' });
    const directory = within(dialog).getByRole('textbox', { name: /Destination directory/ });
    await user.clear(directory);
    await user.type(directory, '/tmp');
    await user.upload(within(dialog).getByLabelText('Files'), new File(['hi'], 'notes.txt'));
    await user.click(within(dialog).getByRole('button', { name: 'Upload' }));
    const upload = await screen.findByRole('listitem', { name: 'Upload notes.txt' });
    await waitFor(() => expect(statusOf(upload)).toBe('Waiting for a moderator to approve'));
    expect(requestsSent(socket)).toEqual([
      {
        event: 'file_transfer_request',
        download: false,
        location: '/tmp',
        filename: 'notes.txt',
        clientRequestId: expect.any(String),
      },
    ]);

    const asked = {
      download: false,
      location: '/tmp',
      filename: 'notes.txt',
      clientRequestId: sentId(socket, 1),
    };
    send(socket, transferEvent(asked));
    send(socket, transferEvent({ ...asked, event: 'file_transfer_request_deny', deniedBy: 'bob' }));
    await waitFor(() =>
      expect(within(upload).getByRole('alert').textContent).toBe('denied by bob'),
    );

    await downloadFrom(user, '/etc/shadow');
    const download = await screen.findByRole('listitem', { name: 'Download shadow' });
    await waitFor(() => expect(statusOf(download)).toBe('Waiting for a moderator to approve'));
    const refused =
      'file transfer request refused: at most 8 file transfer requests may wait at once';
    socket.receive(T.error, refused);
    await waitFor(() => expect(within(download).getByRole('alert').textContent).toBe(refused));
    // Neither reached the transfer route.
    expect(
      fetchMock.mock.calls.slice(calls).filter(([url]) => String(url).includes('/scp')),
    ).toEqual([]);
  });

  it('cancelling a transfer that waits for its approval withdraws it, and nothing is moved', async () => {
    const user = userEvent.setup();
    const socket = await ownerTab();
    await downloadFrom(user, '/var/log/app.log');
    const row = await screen.findByRole('listitem', { name: 'Download app.log' });
    await waitFor(() => expect(statusOf(row)).toBe('Waiting for a moderator to approve'));
    send(socket, transferEvent({ clientRequestId: sentId(socket, 1) }));
    await user.click(within(row).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(statusOf(row)).toBe('Cancelled'));
    // The owner's own denial withdraws it, so the moderators' prompts go.
    expect(socket.payloads(T.fileTransferDecision).map((p) => JSON.parse(p) as unknown)).toEqual([
      { event: 'file_transfer_decision', requestId: 'req-1', approved: false },
    ]);
    // Approved after all (the moderator was quicker): it is not made.
    send(socket, transferEvent({ event: 'file_transfer_request_approve', approved: true }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(vi.mocked(fetch).mock.calls.filter(([url]) => String(url).includes('/scp'))).toEqual([]);
  });
});

describe('moderated file transfers, in a tab that joined the session', () => {
  it('a moderator approves or denies each request, and sees who approved so far', async () => {
    const user = userEvent.setup();
    const socket = await joinedTab('moderator');
    send(socket, transferEvent({ location: '/etc/hosts' }));
    send(
      socket,
      transferEvent({
        requestId: 'req-2',
        download: false,
        location: '/tmp',
        filename: 'notes.txt',
      }),
    );
    const requests = await screen.findByRole('list', { name: 'File transfer requests' });
    const download = within(requests).getByRole('listitem', {
      name: 'alice wants to download /etc/hosts',
    });
    const upload = within(requests).getByRole('listitem', {
      name: 'alice wants to upload notes.txt to /tmp',
    });

    await user.click(within(download).getByRole('button', { name: 'Approve' }));
    await user.click(within(upload).getByRole('button', { name: 'Deny' }));
    expect(socket.payloads(T.fileTransferDecision).map((p) => JSON.parse(p) as unknown)).toEqual([
      { event: 'file_transfer_decision', requestId: 'req-1', approved: true },
      { event: 'file_transfer_decision', requestId: 'req-2', approved: false },
    ]);

    // The policy wants another moderator: this tab waits with the others, asked no more.
    send(
      socket,
      transferEvent({
        event: 'file_transfer_request_approve',
        location: '/etc/hosts',
        approvers: ['bob'],
      }),
    );
    await waitFor(() =>
      expect(download.textContent).toContain('approved by bob, waiting for others'),
    );
    expect(within(download).queryByRole('button', { name: 'Approve' })).toBeNull();

    send(
      socket,
      transferEvent({
        event: 'file_transfer_request_deny',
        requestId: 'req-2',
        download: false,
        location: '/tmp',
        filename: 'notes.txt',
        deniedBy: 'bob',
      }),
    );
    send(
      socket,
      transferEvent({
        event: 'file_transfer_request_approve',
        location: '/etc/hosts',
        approvers: ['bob', 'erin'],
        approved: true,
      }),
    );
    await waitFor(() =>
      expect(screen.queryByRole('list', { name: 'File transfer requests' })).toBeNull(),
    );
  });

  it('an observer sees what is asked but has no say in it', async () => {
    const socket = await joinedTab('observer');
    send(socket, transferEvent({ location: '/etc/hosts' }));
    const request = await screen.findByRole('listitem', {
      name: 'alice wants to download /etc/hosts',
    });
    expect(within(request).queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(socket.payloads(T.fileTransferDecision)).toEqual([]);
  });

  it("the owner's second tab shows their request as theirs, to withdraw, not to approve", async () => {
    const user = userEvent.setup();
    // The signed-in user (the fixture's admin) owns the session and joined it again as a peer.
    const socket = await joinedTab('peer');
    send(socket, transferEvent({ requester: 'admin', location: '/etc/hosts' }));
    const own = await screen.findByRole('listitem', {
      name: 'You asked to download /etc/hosts from another tab',
    });
    expect(within(own).queryByRole('button', { name: 'Approve' })).toBeNull();
    await user.click(within(own).getByRole('button', { name: 'Withdraw' }));
    expect(socket.payloads(T.fileTransferDecision).map((p) => JSON.parse(p) as unknown)).toEqual([
      { event: 'file_transfer_decision', requestId: 'req-1', approved: false },
    ]);
  });
});
