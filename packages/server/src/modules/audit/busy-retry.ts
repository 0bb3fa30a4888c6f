import {
  defaultBusyRetry,
  retryWhileBusy,
  type BusyRetryOptions,
} from '../../backend/storage-busy.js';
import type { AuditStore } from './audit.types.js';

/**
 * An audit store that waits out another process's lock on its SQLite file, on timers, before
 * giving up with StorageBusyError. For admin commands: they have no spool (the server's spool
 * directory is the server's alone), and their events must not fail because the server happened
 * to be writing one at that moment.
 */
export function retryingWhileBusy(
  store: AuditStore,
  options: BusyRetryOptions = defaultBusyRetry,
): AuditStore {
  const retry = <T>(call: () => Promise<T>) => retryWhileBusy(call, options);
  return {
    emit: (input) => retry(() => store.emit(input)),
    emitBatch: (inputs) => retry(() => store.emitBatch(inputs)),
    search: (q) => retry(() => store.search(q)),
    readStored: (q) => retry(() => store.readStored(q)),
    searchSessionEvents: (q) => retry(() => store.searchSessionEvents(q)),
    removeOlderThan: (cutoff, batchSize) => retry(() => store.removeOlderThan(cutoff, batchSize)),
    close: () => store.close(),
  };
}
