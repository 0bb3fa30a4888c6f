import type { Clock } from '../../clock.js';
import type { AuditStore } from '../audit/index.js';
import { emitAuditInBackground } from '../audit/emit.js';
import { DeliveryError, describeFailure, isPermanent } from './failure.js';
import type { DeliveryStatus, IntegrationStatusStore } from './integrations.store.js';

/** One message to one integration. */
export interface DeliveryJob {
  integration: string;
  /** What it is about, for the audit event when it cannot be delivered. */
  subject: string;
  /** One attempt; it must let go of its socket when the signal aborts. */
  attempt: (signal: AbortSignal) => Promise<void>;
}

export interface DeliveryOptions {
  /** How long one attempt may take (default 10 s): a receiver that hangs costs no more. */
  attemptTimeoutMs?: number;
  /** Waits before each retry (default 1, 2, 4, 8, 16 s): five retries over about half a minute. */
  backoffMs?: readonly number[];
  /** Deliveries this proxy keeps at once (default 1000); beyond them new ones are dropped. */
  maxPending?: number;
}

export interface DeliveryDeps {
  status: IntegrationStatusStore;
  audit: AuditStore;
  now: Clock;
  /** Told when a status cannot be written (storage down): delivery goes on regardless. */
  onError: (error: unknown) => void;
}

const defaultBackoffMs = [1_000, 2_000, 4_000, 8_000, 16_000];

/**
 * The deliveries of this proxy, in memory: each job runs on its own (one integration's slow
 * receiver never holds another's), each attempt has a deadline, failures are retried with
 * exponential backoff, and after the last failure one TIG10W audit event says what was lost.
 * The status is written to the backend after every attempt, so every proxy shows it.
 *
 * A proxy that stops drops what it had not delivered yet: notices are a courtesy, the request
 * itself is in the backend and the console lists it.
 */
export class DeliveryQueue {
  private readonly attemptTimeoutMs: number;
  private readonly backoffMs: readonly number[];
  private readonly maxPending: number;
  private readonly pending = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<AbortController>();
  /** Status writes per integration, chained so they land in the order of the attempts. */
  private readonly writes = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly deps: DeliveryDeps,
    options: DeliveryOptions = {},
  ) {
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
    this.backoffMs = options.backoffMs ?? defaultBackoffMs;
    this.maxPending = options.maxPending ?? 1_000;
  }

  /** Queues a job and returns at once: nothing here waits for the network. */
  enqueue(job: DeliveryJob): void {
    if (this.closed) return;
    if (this.totalPending() >= this.maxPending) {
      this.giveUp(job, 'dropped: too many deliveries are waiting');
      return;
    }
    this.count(job.integration, +1);
    void this.run(job, 0);
  }

  /** One attempt now, for Send test message: its failure goes to the caller, not to retries. */
  async once(job: DeliveryJob): Promise<void> {
    try {
      await this.attempt(job);
      this.record(job.integration, { ok: true });
    } catch (error) {
      this.record(job.integration, { ok: false, error: describeFailure(error), final: false });
      throw error;
    }
  }

  /** Stops every timer and attempt; what was waiting is dropped. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const controller of this.running) controller.abort();
  }

  /** Settles once the status writes issued so far are done (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes.values()]);
  }

  pendingOf(integration: string): number {
    return this.pending.get(integration) ?? 0;
  }

  private async run(job: DeliveryJob, retry: number): Promise<void> {
    if (this.closed) return;
    try {
      await this.attempt(job);
      this.count(job.integration, -1);
      this.record(job.integration, { ok: true });
      return;
    } catch (error) {
      if (this.closed) return;
      const reason = describeFailure(error);
      const wait = isPermanent(error) ? undefined : this.backoffMs[retry];
      if (wait === undefined) {
        this.count(job.integration, -1);
        this.record(job.integration, { ok: false, error: reason, final: true });
        this.giveUp(job, reason);
        return;
      }
      this.record(job.integration, { ok: false, error: reason, final: false });
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.run(job, retry + 1);
      }, wait);
      timer.unref(); // a retry alone must not keep a stopping process alive
      this.timers.add(timer);
    }
  }

  /** One attempt under the deadline; the deadline wins even over a sender that ignores it. */
  private async attempt(job: DeliveryJob): Promise<void> {
    const controller = new AbortController();
    this.running.add(controller);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new DeliveryError(`no answer within ${this.attemptTimeoutMs / 1000} s`));
        controller.abort();
      }, this.attemptTimeoutMs);
    });
    const attempt = job.attempt(controller.signal);
    attempt.catch(() => {}); // its late failure after the deadline is no one's concern
    try {
      await Promise.race([attempt, deadline]);
    } finally {
      clearTimeout(timer);
      this.running.delete(controller);
    }
  }

  private giveUp(job: DeliveryJob, error: string): void {
    emitAuditInBackground(this.deps.audit, 'TIG10W', {
      name: job.integration,
      subject: job.subject,
      error,
    });
  }

  private record(
    integration: string,
    outcome: { ok: true } | { ok: false; error: string; final: boolean },
  ): void {
    const at = new Date(this.deps.now()).toISOString();
    const previous = this.writes.get(integration) ?? Promise.resolve();
    const write = previous
      .then(async () => {
        const before = await this.deps.status.get(integration);
        await this.deps.status.put(
          integration,
          nextStatus(before, outcome, at, this.pendingOf(integration)),
        );
      })
      .catch(this.deps.onError)
      .finally(() => {
        if (this.writes.get(integration) === write) this.writes.delete(integration);
      });
    this.writes.set(integration, write);
  }

  private count(integration: string, delta: number): void {
    const next = this.pendingOf(integration) + delta;
    if (next > 0) this.pending.set(integration, next);
    else this.pending.delete(integration);
  }

  private totalPending(): number {
    let total = 0;
    for (const count of this.pending.values()) total += count;
    return total;
  }
}

/**
 * The status after an attempt: a success is `ok`; the last failure is `failing`; a failure
 * that will be retried keeps the state (an integration that worked stays `ok` while it retries),
 * but never leaves it `unused`.
 */
function nextStatus(
  before: DeliveryStatus,
  outcome: { ok: true } | { ok: false; error: string; final: boolean },
  at: string,
  pending: number,
): DeliveryStatus {
  if (outcome.ok) return { state: 'ok', lastDelivery: at, lastError: '', pending };
  const state = outcome.final || before.state === 'unused' ? 'failing' : before.state;
  return { state, lastDelivery: at, lastError: outcome.error, pending };
}
