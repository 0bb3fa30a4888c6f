import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import {
  baseName,
  useFileTransfers,
  waitingForApprovalText,
  type TransferDeps,
} from './useFileTransfers';

const endpoint = { clusterId: 'root', serverId: 'node-1', login: 'root' };

function fakeDeps(fetch: TransferDeps['fetch']): TransferDeps {
  return { headers: () => ({ Authorization: 'Bearer t' }), fetch, save: vi.fn() };
}

describe('useFileTransfers', () => {
  it('downloads a file, shows it done and hands it to the browser', async () => {
    const deps = fakeDeps(
      vi.fn(async () => new Response('hello', { headers: { 'content-length': '5' } })),
    );
    const { result } = renderHook(() => useFileTransfers(endpoint, 100, deps));
    act(() => result.current.download('/etc/hostname'));
    expect(result.current.transfers[0]).toMatchObject({ name: 'hostname', status: 'running' });
    await waitFor(() => expect(result.current.transfers[0]?.status).toBe('done'));
    expect(deps.save).toHaveBeenCalledWith(expect.anything(), 'hostname');
    expect(deps.fetch).toHaveBeenCalledWith(
      '/v1/webapi/sites/root/nodes/node-1/root/scp?location=%2Fetc%2Fhostname&filename=hostname',
      expect.anything(),
    );
  });

  it('marks a cancelled download cancelled, and a refused one failed with the reason', async () => {
    const hanging = vi.fn(
      (_url: RequestInfo | URL, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () =>
            reject(new DOMException('aborted', 'AbortError')),
          ),
        ),
    );
    const { result } = renderHook(() => useFileTransfers(endpoint, 100, fakeDeps(hanging)));
    act(() => result.current.download('big.iso'));
    const id = result.current.transfers[0]!.id;
    act(() => result.current.cancel(id));
    await waitFor(() => expect(result.current.transfers[0]?.status).toBe('cancelled'));

    const refusing = vi.fn(
      async () =>
        new Response('{"error":{"message":"access denied","code":"access_denied"}}', {
          status: 403,
        }),
    );
    const second = renderHook(() => useFileTransfers(endpoint, 100, fakeDeps(refusing)));
    act(() => second.result.current.download('secret'));
    await waitFor(() =>
      expect(second.result.current.transfers[0]).toMatchObject({
        status: 'failed',
        error: 'access denied',
      }),
    );
  });

  it('fails an upload over the limit at once, without sending it', async () => {
    const createRequest = vi.fn();
    const deps = { ...fakeDeps(vi.fn()), createRequest };
    const { result } = renderHook(() => useFileTransfers(endpoint, 4, deps));
    act(() => result.current.upload([new File(['12345'], 'five.txt')], '~'));
    await waitFor(() =>
      expect(result.current.transfers[0]).toMatchObject({
        name: 'five.txt',
        status: 'failed',
        error: 'the file is larger than the limit of 4 bytes',
      }),
    );
    expect(createRequest).not.toHaveBeenCalled();
  });

  it('in a moderated session: waits for the approval, then downloads with its ids', async () => {
    const deps = fakeDeps(vi.fn(async () => new Response('ok')));
    let approve: (ids: {
      moderatedSessionId: string;
      fileTransferRequestId: string;
    }) => void = () => undefined;
    const approveFirst = vi.fn(
      (_ask: unknown, _signal: AbortSignal, waiting: () => void) =>
        new Promise<{ moderatedSessionId: string; fileTransferRequestId: string }>((resolve) => {
          waiting();
          approve = resolve;
        }),
    );
    const { result } = renderHook(() =>
      useFileTransfers(endpoint, 100, deps, undefined, approveFirst),
    );
    act(() => result.current.download('/etc/hosts'));
    await waitFor(() =>
      expect(result.current.transfers[0]?.waitingFor).toBe(waitingForApprovalText),
    );
    expect(approveFirst.mock.calls[0]?.[0]).toEqual({ download: true, location: '/etc/hosts' });
    expect(deps.fetch).not.toHaveBeenCalled();
    act(() => approve({ moderatedSessionId: 's1', fileTransferRequestId: 'r1' }));
    await waitFor(() => expect(result.current.transfers[0]?.status).toBe('done'));
    expect(result.current.transfers[0]?.waitingFor).toBeUndefined();
    expect(deps.fetch).toHaveBeenCalledWith(
      '/v1/webapi/sites/root/nodes/node-1/root/scp?location=%2Fetc%2Fhosts&filename=hosts&moderatedSessionId=s1&fileTransferRequestId=r1',
      expect.anything(),
    );
  });

  it('in a moderated session: a denial fails the transfer with who denied it', async () => {
    const deps = fakeDeps(vi.fn());
    const approveFirst = vi.fn(() => Promise.reject(new Error('denied by bob')));
    const { result } = renderHook(() =>
      useFileTransfers(endpoint, 100, deps, undefined, approveFirst),
    );
    act(() => result.current.download('/etc/hosts'));
    await waitFor(() =>
      expect(result.current.transfers[0]).toMatchObject({
        status: 'failed',
        error: 'denied by bob',
      }),
    );
    expect(deps.fetch).not.toHaveBeenCalled();
  });

  it('runs the check once for the files given together, and sends nothing when it fails', async () => {
    const createRequest = vi.fn();
    const deps = { ...fakeDeps(vi.fn()), createRequest };
    const checkFirst = vi.fn(() => Promise.reject(new Error('The MFA check was cancelled')));
    const { result } = renderHook(() => useFileTransfers(endpoint, 100, deps, checkFirst));
    act(() => result.current.upload([new File(['a'], 'a.txt'), new File(['b'], 'b.txt')], '~'));
    await waitFor(() =>
      expect(result.current.transfers.map((t) => [t.status, t.error])).toEqual([
        ['failed', 'The MFA check was cancelled'],
        ['failed', 'The MFA check was cancelled'],
      ]),
    );
    expect(checkFirst).toHaveBeenCalledTimes(1);
    expect(createRequest).not.toHaveBeenCalled();
  });

  it('asks the check again for a file whose approval came after the first check lapsed', async () => {
    // An upload that is sent and never answered: only when it is sent matters here.
    const sent = vi.fn();
    const createRequest = () =>
      ({ open: sent, setRequestHeader() {}, send() {}, abort() {}, upload: {} }) as never;
    const deps = { ...fakeDeps(vi.fn()), createRequest };
    const checkFirst = vi.fn(async () => {});
    const approvals: (() => void)[] = [];
    const approveFirst = vi.fn(
      () =>
        new Promise<{ moderatedSessionId: string; fileTransferRequestId: string }>((resolve) =>
          approvals.push(() => resolve({ moderatedSessionId: 's1', fileTransferRequestId: 'r' })),
        ),
    );
    let clock = 1_000_000;
    const now = vi.spyOn(Date, 'now').mockImplementation(() => clock);
    try {
      const { result } = renderHook(() =>
        useFileTransfers(endpoint, 100, deps, checkFirst, approveFirst),
      );
      act(() => result.current.upload([new File(['a'], 'a.txt'), new File(['b'], 'b.txt')], '~'));
      await waitFor(() => expect(approvals).toHaveLength(2));
      act(() => approvals[0]!());
      await waitFor(() => expect(sent).toHaveBeenCalledTimes(1));
      expect(checkFirst).toHaveBeenCalledTimes(1);
      clock += 55_000; // the moderators took their time over the second file
      act(() => approvals[1]!());
      await waitFor(() => expect(sent).toHaveBeenCalledTimes(2));
      expect(checkFirst).toHaveBeenCalledTimes(2);
    } finally {
      now.mockRestore();
    }
  });

  it('downloads only once the check has passed', async () => {
    const order: string[] = [];
    const fetch = vi.fn(async () => {
      order.push('fetch');
      return new Response('ok');
    });
    const checkFirst = vi.fn(async () => {
      order.push('check');
    });
    const { result } = renderHook(() =>
      useFileTransfers(endpoint, 100, fakeDeps(fetch), checkFirst),
    );
    act(() => result.current.download('/etc/hostname'));
    await waitFor(() => expect(result.current.transfers[0]?.status).toBe('done'));
    expect(order).toEqual(['check', 'fetch']);
  });

  it('names a download after the last path segment', () => {
    expect(baseName('/var/log/syslog')).toBe('syslog');
    expect(baseName('dir/')).toBe('dir');
    expect(baseName('/')).toBe('download');
  });
});
