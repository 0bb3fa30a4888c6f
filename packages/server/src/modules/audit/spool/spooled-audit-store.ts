import { auditCatalogue } from '@postern/contracts';
import { isSqliteBusy, retryWhileBusy, StorageBusyError } from '../../../backend/storage-busy.js';
import { prepareEvent, stampEvent } from '../audit.common.js';
import {
  AuditBadParameterError,
  type AuditEvent,
  type AuditEventInput,
  type AuditSearchQuery,
  type AuditSearchResult,
  type AuditStoredQuery,
  type AuditStore,
  type ReplayableAuditStore,
} from '../audit.types.js';
import { AuditUnavailableError, type AuditHealth } from './audit-health.js';
import { SpoolFile } from './spool-file.js';

export type AuditOnFailure = 'refuse' | 'continue';

export interface AuditSpoolOptions {
  /** Where the spool file lives (`<data dir>/audit-spool`). */
  dir: string;
  /** The spool's bound; past it events are lost and, with `refuse`, new sessions refused. */
  maxBytes: number;
  onFailure: AuditOnFailure;
  clusterName: string;
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: object) => void;
  /** Pauses between tries to write the spool to the store: doubling from first to max. */
  retry?: { firstDelayMs: number; maxDelayMs: number };
  /**
   * How long an event waits for a lock another process holds on a SQLite audit file (an admin
   * command writing its own event) before the store counts as failed. Default 500 ms.
   */
  busyWaitMs?: number;
}

const defaultRetry = { firstDelayMs: 200, maxDelayMs: 5000 };

/**
 * The audit store behind a spool: an event the store cannot take (locked, down, closed) is kept
 * in an on-disk spool, and from then on every event goes there, so order is kept, until a
 * background drainer has written them all to the store. Then an `audit.degraded` event says when
 * the failure started and ended. Bad input is never spooled: it is the caller's error.
 */
export class SpooledAuditStore implements AuditStore, AuditHealth {
  private degradedSince: Date | null = null;
  private spooled = 0;
  private lost = 0;
  /** An event was refused for lack of room and nothing has been drained since. */
  private full = false;
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private delayMs: number;
  private closed = false;
  private readonly retry: { firstDelayMs: number; maxDelayMs: number };

  private constructor(
    private readonly inner: ReplayableAuditStore,
    private readonly file: SpoolFile,
    private readonly options: AuditSpoolOptions,
  ) {
    this.retry = options.retry ?? defaultRetry;
    this.delayMs = this.retry.firstDelayMs;
  }

  /** Opens the spool; events left by an earlier run are written to the store in the background. */
  static async open(
    inner: ReplayableAuditStore,
    options: AuditSpoolOptions,
  ): Promise<SpooledAuditStore> {
    const file = await SpoolFile.open(options.dir);
    const store = new SpooledAuditStore(inner, file, options);
    if (file.size > 0) {
      const left = await file.readAll();
      // The first event that could not be stored marks when the failure started.
      store.degradedSince = new Date(left[0]?.time ?? Date.now());
      store.spooled = left.length;
      options.log('warn', 'audit events spooled by an earlier run are being stored', {
        count: left.length,
      });
      store.scheduleDrain(0);
    }
    return store;
  }

  async emit(given: AuditEventInput): Promise<AuditEvent> {
    // Its uid and time are fixed first: a write that fails may have been stored, and the copy
    // spooled must then be known as that event when it is replayed.
    const input = stampEvent(given);
    if (!this.degradedSince) {
      try {
        const deadlineMs = this.options.busyWaitMs ?? 500;
        return await retryWhileBusy(() => this.inner.emit(input), { deadlineMs });
      } catch (error) {
        if (error instanceof AuditBadParameterError) throw error;
        this.enterDegraded(error);
      }
    }
    return this.spool(input);
  }

  async emitBatch(given: readonly AuditEventInput[]): Promise<AuditEvent[]> {
    const inputs = given.map(stampEvent);
    if (!this.degradedSince) {
      try {
        const deadlineMs = this.options.busyWaitMs ?? 500;
        return await retryWhileBusy(() => this.inner.emitBatch(inputs), { deadlineMs });
      } catch (error) {
        if (error instanceof AuditBadParameterError) throw error;
        this.enterDegraded(error);
      }
    }
    // The batch was one transaction: all of it or none of it is stored, so all of it goes to
    // the spool, and the replay skips what was.
    const spooled: AuditEvent[] = [];
    for (const input of inputs) spooled.push(await this.spool(input));
    return spooled;
  }

  assertCanAudit(): void {
    if (this.options.onFailure === 'refuse' && this.full) throw new AuditUnavailableError();
  }

  /** Whether events are going to the spool now (the store failed and has not caught up). */
  get degraded(): boolean {
    return this.degradedSince !== null;
  }

  search(q: AuditSearchQuery): Promise<AuditSearchResult> {
    return busyAsStorageBusy(() => this.inner.search(q));
  }

  readStored(q: AuditStoredQuery): Promise<AuditSearchResult> {
    return busyAsStorageBusy(() => this.inner.readStored(q));
  }

  searchSessionEvents(q: Omit<AuditSearchQuery, 'eventTypes'>): Promise<AuditSearchResult> {
    return busyAsStorageBusy(() => this.inner.searchSessionEvents(q));
  }

  removeOlderThan(cutoff: Date, batchSize: number): Promise<number> {
    return busyAsStorageBusy(() => this.inner.removeOlderThan(cutoff, batchSize));
  }

  /** Stops draining and closes the store; what is still spooled is stored at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.draining;
    await this.inner.close();
  }

  private enterDegraded(error: unknown): void {
    this.degradedSince = new Date();
    this.options.log('error', 'audit store failed: events are spooled on disk until it is back', {
      reason: error instanceof Error ? error.message : String(error),
    });
  }

  /** Synchronous up to the append, so concurrent events reach the spool in call order. */
  private async spool(input: AuditEventInput): Promise<AuditEvent> {
    const { event } = prepareEvent(input, this.options.clusterName);
    const stored = await this.file.append(event, this.options.maxBytes);
    if (stored) {
      this.spooled += 1;
      this.scheduleDrain(this.delayMs);
      return event;
    }
    this.lost += 1;
    this.full = true;
    const fields = { code: event.code, lost: this.lost, maxBytes: this.options.maxBytes };
    if (this.options.onFailure === 'continue') {
      this.options.log(
        'error',
        'audit spool is full: event LOST (audit.on_failure: continue)',
        fields,
      );
      return event;
    }
    this.options.log('error', 'audit spool is full: event lost, new sessions are refused', fields);
    throw new AuditUnavailableError();
  }

  private scheduleDrain(delayMs: number): void {
    if (this.closed || this.timer || this.draining) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.draining = this.drain()
        .catch((error: unknown) => {
          this.options.log('warn', 'audit spool could not be read', { reason: String(error) });
          return false;
        })
        .then((recovered) => {
          this.draining = undefined;
          if (recovered) return;
          this.delayMs = Math.min(this.delayMs * 2, this.retry.maxDelayMs);
          this.scheduleDrain(this.delayMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  /**
   * Writes the spool to the store in order; true once it is empty and the store healthy. Each
   * event is replayed: one whose write was stored but not answered (here or when it was first
   * emitted) is not stored twice.
   */
  private async drain(): Promise<boolean> {
    for (;;) {
      const events = await this.file.readAll();
      let written = 0;
      try {
        for (const event of events) {
          if (this.closed) return false;
          await this.inner.replay([event]);
          written += 1;
        }
      } catch {
        return false;
      } finally {
        if (written > 0) {
          await this.file.dropFirst(written);
          this.full = false;
          this.delayMs = this.retry.firstDelayMs;
        }
      }
      // Events spooled meanwhile are queued before this check, so none is left behind.
      const recovered = await this.file.locked(() => this.file.size === 0 && this.recover());
      if (recovered) return true;
    }
  }

  /** Back to writing straight to the store; the degraded event goes through emit like any other. */
  private recover(): true {
    const fields = {
      degraded_since: this.degradedSince?.toISOString(),
      degraded_until: new Date().toISOString(),
      spooled: this.spooled,
      lost: this.lost,
    };
    this.degradedSince = null;
    this.spooled = 0;
    this.lost = 0;
    this.full = false;
    this.options.log('warn', 'audit store is back: spooled events are stored', fields);
    void this.emit({ ...fields, event: auditCatalogue.TPOS070W.type, code: 'TPOS070W' }).catch(
      () => undefined,
    );
    return true;
  }
}

async function busyAsStorageBusy<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isSqliteBusy(error)) throw new StorageBusyError();
    throw error;
  }
}
