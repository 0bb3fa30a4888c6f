import { useCallback, useEffect, useReducer, useRef } from 'react';
import { fileTooLargeMessage } from '@postern/contracts';
import { apiCredentials } from '../../../api';
import {
  abortError,
  downloadFile,
  isAbortError,
  saveBlob,
  transferUrl,
  uploadFile,
  type TransferEndpoint,
} from './transferClient';
import { sharedCheck } from './filesMfaCheck';
import type { ApprovalIds, TransferAsk } from './moderatedTransfers';
import { initialTransfers, transfersReducer } from './transferStore';

/** The outside world of transfers; tests replace it. */
export interface TransferDeps {
  headers: () => Record<string, string>;
  fetch: typeof fetch;
  createRequest?: () => XMLHttpRequest;
  save: (blob: Blob, name: string) => void;
}

const browserDeps: TransferDeps = {
  headers: apiCredentials,
  fetch: (input, init) => window.fetch(input, init),
  save: saveBlob,
};

const noCheck = () => Promise.resolve();
const noApproval = () => Promise.resolve(undefined);

/**
 * What a transfer waits for in a moderated session: its moderators' approval, asked for `ask`;
 * `waiting` is called while they decide. Resolves with the ids to make it with, or undefined
 * where none is needed.
 */
export type ApproveFirst = (
  ask: TransferAsk,
  signal: AbortSignal,
  waiting: () => void,
) => Promise<ApprovalIds | undefined>;

export const waitingForApprovalText = 'Waiting for a moderator to approve';

/** The last path segment: what a downloaded file is saved as. */
export const baseName = (remotePath: string) =>
  remotePath.replace(/\/+$/, '').split('/').pop() || 'download';

/**
 * The transfers of one terminal tab and the actions that start and stop them. Transfers run on
 * while the tab lives; closing the tab cancels them.
 */
export function useFileTransfers(
  endpoint: TransferEndpoint,
  /** `file_transfer.max_bytes`: a larger file fails at once instead of after sending it. */
  maxBytes: number,
  deps: TransferDeps = browserDeps,
  /**
   * What must pass before the files given at once start (require_session_mfa's check, asked
   * once for all of them); a rejection fails each with its message.
   */
  checkFirst: () => Promise<void> = noCheck,
  /** In a moderated session: each transfer waits for its moderators' approval first. */
  approveFirst: ApproveFirst = noApproval,
) {
  const [state, dispatch] = useReducer(transfersReducer, initialTransfers);
  const controllers = useRef(new Map<string, AbortController>());
  const seq = useRef(0);

  useEffect(() => {
    const running = controllers.current;
    return () => {
      for (const controller of running.values()) controller.abort();
    };
  }, []);

  const run = useCallback(
    (
      start: { direction: 'upload' | 'download'; name: string; remotePath: string },
      work: (
        id: string,
        signal: AbortSignal,
        onProgress: (loaded: number, total?: number) => void,
        waiting: (waitingFor: string | undefined) => void,
      ) => Promise<void>,
    ) => {
      const id = `transfer-${++seq.current}`;
      const controller = new AbortController();
      controllers.current.set(id, controller);
      dispatch({ type: 'start', id, ...start });
      const onProgress = (loaded: number, total?: number) =>
        dispatch({ type: 'progress', id, loaded, ...(total !== undefined ? { total } : {}) });
      void work(id, controller.signal, onProgress, (waitingFor) =>
        dispatch({ type: 'waiting', id, waitingFor }),
      )
        .then(
          () => dispatch({ type: 'done', id }),
          (err: unknown) =>
            dispatch(
              isAbortError(err)
                ? { type: 'cancelled', id }
                : { type: 'failed', id, error: err instanceof Error ? err.message : String(err) },
            ),
        )
        .finally(() => controllers.current.delete(id));
    },
    [],
  );

  /** The approval a transfer needs first, the row saying so while it waits. */
  const approved = useCallback(
    async (ask: TransferAsk, signal: AbortSignal, waiting: (text: string | undefined) => void) => {
      const approval = await approveFirst(ask, signal, () => waiting(waitingForApprovalText));
      waiting(undefined);
      return approval;
    },
    [approveFirst],
  );

  const upload = useCallback(
    (files: File[], directory: string) => {
      // One check for the files chosen together, asked by the first that fits the size limit
      // (one too big fails at once and needs none); the others wait on the same check, unless
      // its grant lapsed while they waited for their approval.
      const check = sharedCheck(checkFirst);
      for (const file of files) {
        const start = { direction: 'upload', name: file.name, remotePath: directory } as const;
        // The server refuses it too, but a browser whose upload is cut short by the refusal
        // sees only a network error.
        if (file.size > maxBytes) {
          run(start, () => Promise.reject(new Error(fileTooLargeMessage(maxBytes))));
          continue;
        }
        run(start, async (_id, signal, onProgress, waiting) => {
          const ask = { download: false, location: directory, filename: file.name };
          const approval = await approved(ask, signal, waiting);
          await check();
          return uploadFile({
            url: transferUrl(endpoint, {
              location: directory,
              filename: file.name,
              ...(approval ? { approval } : {}),
            }),
            file,
            headers: deps.headers(),
            onProgress,
            signal,
            ...(deps.createRequest ? { createRequest: deps.createRequest } : {}),
          });
        });
      }
    },
    [endpoint, maxBytes, deps, run, checkFirst, approved],
  );

  const download = useCallback(
    (remotePath: string) => {
      const name = baseName(remotePath);
      run({ direction: 'download', name, remotePath }, async (_id, signal, onProgress, waiting) => {
        const approval = await approved({ download: true, location: remotePath }, signal, waiting);
        await checkFirst();
        // Cancelled while the check was asked: nothing is fetched.
        if (signal.aborted) throw abortError();
        const blob = await downloadFile({
          url: transferUrl(endpoint, {
            location: remotePath,
            filename: name,
            ...(approval ? { approval } : {}),
          }),
          headers: deps.headers(),
          onProgress,
          signal,
          fetch: deps.fetch,
        });
        deps.save(blob, name);
      });
    },
    [endpoint, deps, run, checkFirst, approved],
  );

  const cancel = useCallback((id: string) => controllers.current.get(id)?.abort(), []);
  const dismiss = useCallback((id: string) => dispatch({ type: 'dismiss', id }), []);

  return { transfers: state.transfers, upload, download, cancel, dismiss };
}

export type FileTransfers = ReturnType<typeof useFileTransfers>;
