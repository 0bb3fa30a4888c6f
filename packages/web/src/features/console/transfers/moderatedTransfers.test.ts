import {
  fileTransferRequestRefused,
  maxWaitingFileTransferRequests,
  type FileTransferRequestEvent,
} from '@postern/contracts';
import { describe, expect, it, vi } from 'vitest';
import { isAbortError } from './transferClient';
import {
  ModeratedTransfers,
  lostInDropMessage,
  notConnectedMessage,
  type TransferFrames,
} from './moderatedTransfers';

/** A socket that is open: every frame goes out. */
const frames = () => ({
  request: vi.fn<TransferFrames['request']>(() => true),
  decide: vi.fn<TransferFrames['decide']>(() => true),
});

const event = (over: Partial<FileTransferRequestEvent>): FileTransferRequestEvent => ({
  event: 'file_transfer_request',
  requestId: 'r1',
  requester: 'alice',
  location: '/etc/hosts',
  download: true,
  approvers: [],
  ...over,
});

const never = new AbortController().signal;

/** The id the tab gave its `n`th request (from 1), as the server echoes it. */
const sentId = (socket: ReturnType<typeof frames>, n: number) =>
  socket.request.mock.calls[n - 1]?.[0].clientRequestId;

describe('ModeratedTransfers, in the owner’s tab', () => {
  it('asks, and resolves with the session and request ids once the approval is final', async () => {
    const transfers = new ModeratedTransfers(true);
    const socket = frames();
    transfers.attach(socket, 'sid-1');
    let settled = false;
    const approval = transfers
      .approval({ download: true, location: '/etc/hosts' }, never)
      .finally(() => (settled = true));
    expect(socket.request).toHaveBeenCalledWith({
      event: 'file_transfer_request',
      download: true,
      location: '/etc/hosts',
      clientRequestId: expect.any(String),
    });
    transfers.onEvent(event({ clientRequestId: sentId(socket, 1) }));
    transfers.onEvent(event({ event: 'file_transfer_request_approve', approvers: ['bob'] }));
    await Promise.resolve();
    expect(settled).toBe(false); // one approval of several
    transfers.onEvent(
      event({ event: 'file_transfer_request_approve', approvers: ['bob', 'erin'], approved: true }),
    );
    await expect(approval).resolves.toEqual({
      moderatedSessionId: 'sid-1',
      fileTransferRequestId: 'r1',
    });
    expect(transfers.prompts).toEqual([]); // its own requests are no prompts
  });

  it('pairs each echo with its request by the id the tab gave it', async () => {
    const transfers = new ModeratedTransfers(true);
    const socket = frames();
    transfers.attach(socket, 'sid-1');
    const upload = transfers.approval(
      { download: false, location: '/tmp', filename: 'a.txt' },
      never,
    );
    const download = transfers.approval({ download: true, location: '/etc/hosts' }, never);
    expect(sentId(socket, 1)).not.toBe(sentId(socket, 2));
    // Echoed out of order: the ids pair them, not the order.
    transfers.onEvent(event({ requestId: 'r-down', clientRequestId: sentId(socket, 2) }));
    transfers.onEvent(
      event({
        requestId: 'r-up',
        download: false,
        location: '/tmp',
        clientRequestId: sentId(socket, 1),
      }),
    );
    transfers.onEvent(
      event({ event: 'file_transfer_request_deny', requestId: 'r-up', deniedBy: 'bob' }),
    );
    transfers.onEvent(
      event({ event: 'file_transfer_request_approve', requestId: 'r-down', approved: true }),
    );
    await expect(upload).rejects.toThrow('denied by bob');
    await expect(download).resolves.toMatchObject({ fileTransferRequestId: 'r-down' });
  });

  it('withdraws a cancelled request: at once when the server named it, else on its echo', async () => {
    const transfers = new ModeratedTransfers(true);
    const socket = frames();
    transfers.attach(socket, 'sid-1');
    const named = new AbortController();
    const first = transfers.approval({ download: true, location: '/a' }, named.signal);
    transfers.onEvent(event({ requestId: 'r-a', clientRequestId: sentId(socket, 1) }));
    named.abort();
    await expect(first).rejects.toSatisfy(isAbortError);
    expect(socket.decide).toHaveBeenLastCalledWith('r-a', false);

    const early = new AbortController();
    const second = transfers.approval({ download: true, location: '/b' }, early.signal);
    early.abort();
    await expect(second).rejects.toSatisfy(isAbortError);
    expect(socket.decide).toHaveBeenCalledTimes(1); // not named yet: nothing to withdraw
    transfers.onEvent(event({ requestId: 'r-b', clientRequestId: sentId(socket, 2) }));
    expect(socket.decide).toHaveBeenLastCalledWith('r-b', false);
    // The withdrawal's own echo (a denial by the owner) changes nothing more.
    transfers.onEvent(
      event({ event: 'file_transfer_request_deny', requestId: 'r-b', withdrawn: true }),
    );
    expect(socket.decide).toHaveBeenCalledTimes(2);
  });

  it('gives up when cancelled or when the session ends, and cannot ask unconnected', async () => {
    const transfers = new ModeratedTransfers(true);
    await expect(transfers.approval({ download: true, location: '/x' }, never)).rejects.toThrow(
      'the terminal is not connected',
    );
    transfers.attach(frames(), 'sid-1');
    const controller = new AbortController();
    const cancelled = transfers.approval({ download: true, location: '/x' }, controller.signal);
    controller.abort();
    await expect(cancelled).rejects.toSatisfy(isAbortError);
    const ended = transfers.approval({ download: true, location: '/y' }, never);
    transfers.detach('the session ended: bye');
    await expect(ended).rejects.toThrow('the session ended: bye');
  });
});

describe('ModeratedTransfers, when the server refuses or the socket is not there', () => {
  const refused = `${fileTransferRequestRefused}at most 8 file transfer requests may wait at once`;

  it('fails the request the server refused, not the one it accepted', async () => {
    const transfers = new ModeratedTransfers(true);
    const socket = frames();
    transfers.attach(socket, 'sid-1');
    const first = transfers.approval({ download: true, location: '/a' }, never);
    const second = transfers.approval({ download: true, location: '/b' }, never);
    transfers.onEvent(
      event({ requestId: 'r-a', location: '/a', clientRequestId: sentId(socket, 1) }),
    );
    transfers.onServerError('resize refused: sizes must be between 1 and 4095'); // not ours
    transfers.onServerError(refused);
    await expect(second).rejects.toThrow(refused);
    transfers.onEvent(
      event({ event: 'file_transfer_request_approve', requestId: 'r-a', approved: true }),
    );
    await expect(first).resolves.toMatchObject({ fileTransferRequestId: 'r-a' });
  });

  it('a request cancelled before its answer still takes that answer, not a later request', async () => {
    const transfers = new ModeratedTransfers(true);
    const socket = frames();
    transfers.attach(socket, 'sid-1');
    const controller = new AbortController();
    const cancelled = transfers.approval({ download: true, location: '/x' }, controller.signal);
    controller.abort();
    await expect(cancelled).rejects.toSatisfy(isAbortError);
    const again = transfers.approval({ download: true, location: '/x' }, never);
    const other = transfers.approval({ download: true, location: '/y' }, never);
    // The cancelled request's echo, then the retry's, then the third is refused.
    transfers.onEvent(
      event({ requestId: 'r-old', location: '/x', clientRequestId: sentId(socket, 1) }),
    );
    transfers.onEvent(
      event({ requestId: 'r-new', location: '/x', clientRequestId: sentId(socket, 2) }),
    );
    transfers.onServerError(refused);
    await expect(other).rejects.toThrow(refused);
    transfers.onEvent(
      event({ event: 'file_transfer_request_approve', requestId: 'r-new', approved: true }),
    );
    await expect(again).resolves.toMatchObject({ fileTransferRequestId: 'r-new' });
  });

  it('queues asks beyond what may wait at once, and sends each as an earlier one is answered', async () => {
    const transfers = new ModeratedTransfers(true);
    const socket = frames();
    transfers.attach(socket, 'sid-1');
    const cancelQueued = new AbortController();
    const asks = Array.from({ length: maxWaitingFileTransferRequests + 2 }, (_, i) =>
      transfers.approval(
        { download: true, location: `/f${i}` },
        i === maxWaitingFileTransferRequests + 1 ? cancelQueued.signal : never,
      ),
    );
    expect(socket.request).toHaveBeenCalledTimes(maxWaitingFileTransferRequests);
    // The last is given up while queued: it is never sent.
    cancelQueued.abort();
    await expect(asks.at(-1)).rejects.toSatisfy(isAbortError);
    expect(socket.request).toHaveBeenCalledTimes(maxWaitingFileTransferRequests);

    transfers.onEvent(
      event({ requestId: 'r0', location: '/f0', clientRequestId: sentId(socket, 1) }),
    );
    expect(socket.request).toHaveBeenCalledTimes(maxWaitingFileTransferRequests); // still waiting
    transfers.onEvent(
      event({ event: 'file_transfer_request_deny', requestId: 'r0', deniedBy: 'bob' }),
    );
    await expect(asks[0]).rejects.toThrow('denied by bob');
    expect(socket.request).toHaveBeenCalledTimes(maxWaitingFileTransferRequests + 1);
    expect(socket.request.mock.calls.at(-1)?.[0]).toMatchObject({
      location: `/f${maxWaitingFileTransferRequests}`,
    });
  });

  it('does not wait for an answer to a request the socket could not send', async () => {
    const transfers = new ModeratedTransfers(true);
    const resuming = { request: vi.fn(() => false), decide: vi.fn(() => false) };
    transfers.attach(resuming, 'sid-1');
    await expect(transfers.approval({ download: true, location: '/x' }, never)).rejects.toThrow(
      notConnectedMessage,
    );
  });
});

describe('ModeratedTransfers, after a dropped connection resumed', () => {
  it('the owner takes a decision it missed, and fails a request the server never had', async () => {
    const transfers = new ModeratedTransfers(true);
    const socket = frames();
    transfers.attach(socket, 'sid-1');
    const echoLost = transfers.approval({ download: true, location: '/a' }, never);
    const neverArrived = transfers.approval({ download: true, location: '/b' }, never);
    transfers.resumed();
    // The replay: how the first request ended (its echo was lost in the drop too).
    transfers.onEvent(
      event({
        event: 'file_transfer_request_approve',
        requestId: 'r-a',
        approved: true,
        clientRequestId: sentId(socket, 1),
      }),
    );
    await expect(echoLost).resolves.toMatchObject({ fileTransferRequestId: 'r-a' });
    // Then the session's data: the replay is over, and nothing came for the second.
    transfers.attach(socket, 'sid-1');
    await expect(neverArrived).rejects.toThrow(lostInDropMessage);
  });

  it('drops the approval of a request cancelled before its echo, which the replay says was approved', async () => {
    const transfers = new ModeratedTransfers(true);
    const socket = frames();
    transfers.attach(socket, 'sid-1');
    const cancelled = new AbortController();
    const asked = transfers.approval({ download: true, location: '/a' }, cancelled.signal);
    cancelled.abort();
    await expect(asked).rejects.toSatisfy(isAbortError);
    expect(socket.decide).not.toHaveBeenCalled(); // not named yet
    transfers.resumed();
    transfers.onEvent(
      event({
        event: 'file_transfer_request_approve',
        requestId: 'r-a',
        approved: true,
        clientRequestId: sentId(socket, 1),
      }),
    );
    // Nobody wants that approval any more: the owner's denial drops it at the server.
    expect(socket.decide).toHaveBeenCalledWith('r-a', false);
  });

  it('a joined tab’s prompts start over from the replay', () => {
    const transfers = new ModeratedTransfers(false);
    transfers.attach(frames(), 'sid-1');
    transfers.onEvent(event({ requestId: 'r-decided-meanwhile' }));
    transfers.onEvent(event({ requestId: 'r-still-waiting' }));
    transfers.resumed();
    expect(transfers.prompts).toEqual([]);
    transfers.onEvent(event({ requestId: 'r-still-waiting', approvers: ['erin'] }));
    transfers.onEvent(event({ requestId: 'r-asked-meanwhile' }));
    transfers.onEvent(
      event({ event: 'file_transfer_request_deny', requestId: 'r-decided-meanwhile' }),
    );
    expect(transfers.prompts.map((p) => [p.requestId, p.approvers])).toEqual([
      ['r-still-waiting', ['erin']],
      ['r-asked-meanwhile', []],
    ]);
  });
});

describe('ModeratedTransfers, in a joined tab', () => {
  it('lists the others’ requests until one is approved for good or denied', () => {
    const transfers = new ModeratedTransfers(false);
    const socket = frames();
    transfers.attach(socket, 'sid-1');
    const changed = vi.fn();
    transfers.subscribe(changed);
    transfers.onEvent(event({}));
    transfers.onEvent(event({ requestId: 'r2', download: false, location: '/tmp', filename: 'n' }));
    expect(transfers.prompts.map((p) => p.requestId)).toEqual(['r1', 'r2']);

    transfers.decide('r1', true);
    expect(socket.decide).toHaveBeenCalledWith('r1', true);
    transfers.onEvent(event({ event: 'file_transfer_request_approve', approvers: ['bob'] }));
    expect(transfers.prompts[0]).toMatchObject({ approvers: ['bob'], approvedHere: true });

    transfers.onEvent(event({ event: 'file_transfer_request_approve', approved: true }));
    transfers.onEvent(event({ event: 'file_transfer_request_deny', requestId: 'r2' }));
    expect(transfers.prompts).toEqual([]);
    expect(changed).toHaveBeenCalledTimes(5);
  });

  it("marks the viewer's own requests, from another of their tabs in the session", () => {
    const transfers = new ModeratedTransfers(false, 'alice');
    transfers.attach(frames(), 'sid-1');
    transfers.onEvent(event({}));
    transfers.onEvent(event({ requestId: 'r2', requester: 'dave' }));
    expect(transfers.prompts.map((p) => [p.requestId, p.own])).toEqual([
      ['r1', true],
      ['r2', false],
    ]);
  });
});
