/**
 * The file transfers of one terminal tab: what is moving, how far it got, and how it ended.
 * A reducer, so the panel is a pure view of it and the rules are tested without a network.
 */

export type TransferDirection = 'upload' | 'download';
export type TransferStatus = 'running' | 'done' | 'failed' | 'cancelled';

export interface Transfer {
  id: string;
  direction: TransferDirection;
  /** The file's name, as the user knows it. */
  name: string;
  /** Where on the server: the destination directory of an upload, the file of a download. */
  remotePath: string;
  loaded: number;
  /** Total bytes, when known (a download without content-length has none). */
  total: number | undefined;
  status: TransferStatus;
  error: string;
  /** What a running transfer waits for before it moves (a moderator's approval), if anything. */
  waitingFor?: string;
}

export interface TransfersState {
  transfers: Transfer[];
}

export type TransferAction =
  | {
      type: 'start';
      /** Chosen by the caller, who reports progress under it. */
      id: string;
      direction: TransferDirection;
      name: string;
      remotePath: string;
      total?: number;
    }
  | { type: 'progress'; id: string; loaded: number; total?: number }
  | { type: 'waiting'; id: string; waitingFor: string | undefined }
  | { type: 'done'; id: string }
  | { type: 'failed'; id: string; error: string }
  | { type: 'cancelled'; id: string }
  | { type: 'dismiss'; id: string }
  | { type: 'clearFinished' };

export const initialTransfers: TransfersState = { transfers: [] };

export function transfersReducer(state: TransfersState, action: TransferAction): TransfersState {
  switch (action.type) {
    case 'start': {
      const transfer: Transfer = {
        id: action.id,
        direction: action.direction,
        name: action.name,
        remotePath: action.remotePath,
        loaded: 0,
        total: action.total,
        status: 'running',
        error: '',
      };
      return { transfers: [...state.transfers, transfer] };
    }
    case 'progress':
      return update(state, action.id, (t) => ({
        ...t,
        loaded: action.loaded,
        total: action.total ?? t.total,
      }));
    case 'waiting':
      return update(state, action.id, ({ waitingFor: _, ...t }) =>
        action.waitingFor === undefined ? t : { ...t, waitingFor: action.waitingFor },
      );
    case 'done':
      return update(state, action.id, (t) => ({
        ...t,
        status: 'done',
        loaded: t.total ?? t.loaded,
      }));
    case 'failed':
      return update(state, action.id, (t) => ({ ...t, status: 'failed', error: action.error }));
    case 'cancelled':
      return update(state, action.id, (t) => ({ ...t, status: 'cancelled' }));
    case 'dismiss':
      return { transfers: state.transfers.filter((t) => t.id !== action.id) };
    case 'clearFinished':
      return { transfers: state.transfers.filter((t) => t.status === 'running') };
  }
}

/** Only a running transfer moves; a finished one keeps how it ended (a late event changes nothing). */
function update(
  state: TransfersState,
  id: string,
  change: (transfer: Transfer) => Transfer,
): TransfersState {
  return {
    transfers: state.transfers.map((t) => (t.id === id && t.status === 'running' ? change(t) : t)),
  };
}

/** Whole percent done, or undefined while the total is unknown. */
export function percentOf(transfer: Transfer): number | undefined {
  if (transfer.status === 'done') return 100;
  if (!transfer.total) return undefined;
  return Math.min(100, Math.floor((transfer.loaded / transfer.total) * 100));
}
