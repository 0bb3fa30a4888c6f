import { auditCatalogue, type AuditCode } from '@postern/contracts';
import type { AuditEventInput, AuditStore } from './audit.types.js';
import { reportUnwritten, trackInBackground } from './emit.js';

export interface AuditBatcherOptions {
  /** How long an event may wait for others before the batch is written. */
  maxDelayMs?: number;
  /** A batch this large is written at once. */
  maxEvents?: number;
}

/**
 * Events that come in bursts (a database session's statements: one per query) written together:
 * one store write per batch instead of one per event, so the audit log keeps up with thousands of
 * queries a second and the query path never waits for it. Order is kept; an event waits at most
 * `maxDelayMs`. `flush()` writes what is queued (a session's end writes its statements first).
 */
export class AuditBatcher {
  #queued: AuditEventInput[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #maxDelayMs: number;
  readonly #maxEvents: number;

  constructor(
    private readonly audit: AuditStore,
    options: AuditBatcherOptions = {},
  ) {
    this.#maxDelayMs = options.maxDelayMs ?? 50;
    this.#maxEvents = options.maxEvents ?? 500;
  }

  add(code: AuditCode, fields: { user?: string; [field: string]: unknown }): void {
    this.#queued.push({
      ...fields,
      event: auditCatalogue[code].type,
      code,
      // Stamped now, not when the batch is written: the log shows when the statement ran.
      time: new Date(),
    });
    if (this.#queued.length >= this.#maxEvents) return void this.flush();
    this.#timer ??= setTimeout(() => void this.flush(), this.#maxDelayMs);
  }

  /** Writes what is queued; settles once it is written (or reported as not written). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#queued;
    if (batch.length === 0) return Promise.resolve();
    this.#queued = [];
    const written = this.audit.emitBatch(batch).then(
      () => undefined,
      (error: unknown) =>
        reportUnwritten(`${batch[0]!.code} (and ${batch.length - 1} more)`, error),
    );
    trackInBackground(written);
    return written;
  }

  get queued(): number {
    return this.#queued.length;
  }
}
