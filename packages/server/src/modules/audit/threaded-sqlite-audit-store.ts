import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { prepareEvent, prepareReplay } from './audit.common.js';
import { SqliteAuditStore, type SqliteAuditStoreOptions } from './audit.sqlite.js';
import type { AuditChainSource, ChainRow, ChainState } from './audit-chain.js';
import type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  AuditStoredQuery,
  ReplayableAuditStore,
} from './audit.types.js';
import type {
  WriterData,
  WriterError,
  WriterReply,
  WriterRequest,
} from './audit-writer.protocol.js';

/** The writer thread's entry, compiled beside this module (absent when running from source). */
const defaultWorkerEntry = new URL('./audit-writer.worker.js', import.meta.url);

export interface ThreadedSqliteAuditStoreOptions extends SqliteAuditStoreOptions {
  /** The compiled writer thread to run; tests running from source point it at the build. */
  workerEntry?: URL;
}

/**
 * The SQLite audit log with its writes on a thread of their own.
 *
 * Why: better-sqlite3 writes synchronously, and a database session audits every statement. On
 * the proxy's main thread, a batch of a few hundred statements held the event loop for ~10 ms
 * every 50 ms, every session waiting meanwhile, and a fifth of the 2-core test machine sat idle:
 * pgbench through the native PostgreSQL listener went from 7,934 to 9,237 TPS with the writes
 * moved off it, for the same CPU per statement (docs/databases.md, "The audit writer thread").
 *
 * Events are completed and checked here (prepareEvent), so bad input fails the caller at once
 * and the stored events are returned without a trip back; the writer thread chains, inserts and
 * indexes them, in order, on its own connection. Reads (search, the chain) stay on this thread on
 * a connection of their own: SQLite's WAL lets them read while the writer writes, and this
 * side's text index catches up on the writer's rows when it searches, as it does for rows
 * another process wrote. Retention's deletes go to the writer too, so one connection writes.
 */
export class ThreadedSqliteAuditStore implements ReplayableAuditStore, AuditChainSource {
  /** Whether the compiled writer thread is there to run (it is not when running from source). */
  static available(entry: URL = defaultWorkerEntry): boolean {
    return existsSync(fileURLToPath(entry));
  }

  readonly #reader: SqliteAuditStore;
  readonly #data: WriterData;
  readonly #entry: URL;
  #worker: Worker | undefined;
  readonly #pending = new Map<
    number,
    { resolve(reply: WriterReply): void; reject(e: Error): void }
  >();
  #nextId = 1;
  #closed: Promise<void> | undefined;

  constructor(
    path: string,
    private readonly clusterName: string,
    options: ThreadedSqliteAuditStoreOptions = {},
  ) {
    const { workerEntry, ...storeOptions } = options;
    this.#entry = workerEntry ?? defaultWorkerEntry;
    // Opened first and here: the schema and any backlog are settled before the writer starts.
    this.#reader = new SqliteAuditStore(path, clusterName, storeOptions);
    this.#data = { path, clusterName, options: storeOptions };
  }

  async emit(input: AuditEventInput): Promise<AuditEvent> {
    const [event] = await this.emitBatch([input]);
    return event!;
  }

  async emitBatch(inputs: readonly AuditEventInput[]): Promise<AuditEvent[]> {
    const prepared = inputs.map((input) => prepareEvent(input, this.clusterName));
    await this.#call({ op: 'append', rows: prepared.map(({ row }) => row) });
    return prepared.map(({ event }) => event);
  }

  async replay(events: readonly AuditEvent[]): Promise<void> {
    const rows = events.map((event) => prepareReplay(event, this.clusterName).row);
    await this.#call({ op: 'append', rows });
  }

  search(q: AuditSearchQuery): Promise<AuditSearchResult> {
    return this.#reader.search(q);
  }

  readStored(q: AuditStoredQuery): Promise<AuditSearchResult> {
    return this.#reader.readStored(q);
  }

  searchSessionEvents(q: Omit<AuditSearchQuery, 'eventTypes'>): Promise<AuditSearchResult> {
    return this.#reader.searchSessionEvents(q);
  }

  async removeOlderThan(cutoff: Date, batchSize: number): Promise<number> {
    return (await this.#call({ op: 'remove', cutoffMs: cutoff.getTime(), batchSize })).removed ?? 0;
  }

  chainState(): Promise<ChainState> {
    return this.#reader.chainState();
  }

  chainRows(afterId: string | undefined, limit: number): Promise<ChainRow[]> {
    return this.#reader.chainRows(afterId, limit);
  }

  /**
   * Waits for the writes already taken, stops the writer, and closes the reading side. Writes
   * from the moment it is called are refused; a second call gets the first one's promise.
   */
  close(): Promise<void> {
    this.#closed ??= this.#shutDown();
    return this.#closed;
  }

  async #shutDown(): Promise<void> {
    const worker = this.#worker;
    // The writer takes messages in order: the close comes after every write already sent.
    if (worker) await this.#send(worker, { op: 'close' }).catch(() => undefined);
    this.#worker = undefined;
    await worker?.terminate();
    await this.#reader.close();
  }

  #call(request: DistributiveOmit<WriterRequest, 'id'>): Promise<WriterReply & { ok: true }> {
    if (this.#closed) return Promise.reject(new Error('the audit store is closed'));
    return this.#send(this.#ensureWorker(), request);
  }

  #send(
    worker: Worker,
    request: DistributiveOmit<WriterRequest, 'id'>,
  ): Promise<WriterReply & { ok: true }> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, {
        resolve: (reply) => (reply.ok ? resolve(reply) : reject(rebuildError(reply.error))),
        reject,
      });
      // Held open only while a write is on its way, so an idle store never keeps a process up.
      worker.ref();
      worker.postMessage({ ...request, id } as WriterRequest);
    });
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.#entry, { workerData: this.#data });
    worker.on('message', (reply: WriterReply) => {
      const waiter = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) worker.unref();
      waiter?.resolve(reply);
    });
    // A writer that died fails what it held (the spool keeps those events); the next write
    // starts another.
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const waiter of this.#pending.values()) waiter.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the audit writer thread exited (code ${code})`)));
    worker.unref();
    this.#worker = worker;
    return worker;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The writer's error as the callers know it: `code` decides busy retries (storage-busy.ts). */
function rebuildError({ name, message, code }: WriterError): Error {
  const error = new Error(message) as Error & { code?: string };
  error.name = name;
  if (code !== undefined) error.code = code;
  return error;
}
