import { describe, expect, it } from 'vitest';
import {
  initialTransfers,
  percentOf,
  transfersReducer,
  type TransferAction,
} from './transferStore';

const run = (...actions: TransferAction[]) => actions.reduce(transfersReducer, initialTransfers);
const start: TransferAction = {
  type: 'start',
  id: 't1',
  direction: 'upload',
  name: 'notes.txt',
  remotePath: '~',
};

describe('transfersReducer', () => {
  it('follows progress to completion', () => {
    let state = run(start, { type: 'progress', id: 't1', loaded: 250, total: 1000 });
    expect(state.transfers[0]).toMatchObject({ status: 'running', loaded: 250, total: 1000 });
    expect(percentOf(state.transfers[0]!)).toBe(25);
    state = transfersReducer(state, { type: 'done', id: 't1' });
    expect(state.transfers[0]).toMatchObject({ status: 'done', loaded: 1000 });
    expect(percentOf(state.transfers[0]!)).toBe(100);
  });

  it('keeps the error of a failed transfer, and a late event changes nothing', () => {
    const state = run(
      start,
      { type: 'failed', id: 't1', error: 'the file is larger than the limit' },
      { type: 'progress', id: 't1', loaded: 5 },
      { type: 'done', id: 't1' },
    );
    expect(state.transfers[0]).toMatchObject({
      status: 'failed',
      error: 'the file is larger than the limit',
      loaded: 0,
    });
  });

  it('marks a cancelled transfer and dismisses it', () => {
    let state = run(start, { ...start, id: 't2' }, { type: 'cancelled', id: 't1' });
    expect(state.transfers.map((t) => t.status)).toEqual(['cancelled', 'running']);
    state = transfersReducer(state, { type: 'dismiss', id: 't1' });
    expect(state.transfers.map((t) => t.id)).toEqual(['t2']);
    state = transfersReducer(state, { type: 'clearFinished' });
    expect(state.transfers.map((t) => t.id)).toEqual(['t2']);
  });

  it('has no percent while the total is unknown', () => {
    const state = run(
      { ...start, direction: 'download' },
      { type: 'progress', id: 't1', loaded: 9 },
    );
    expect(percentOf(state.transfers[0]!)).toBeUndefined();
  });
});
