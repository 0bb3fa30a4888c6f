/** What callers hand to `emit`: the event type, its catalogue code, and any other fields. */
export interface AuditEventInput {
  event: string;
  code: string;
  user?: string;
  /** When it happened; defaults to now. */
  time?: Date;
  /** Session id, indexed so a session's events can be found. */
  sid?: string;
  [field: string]: unknown;
}

/** A stored event: flat JSON, the common fields named. */
export type AuditEvent = Record<string, unknown> & {
  event: string;
  code: string;
  /** RFC 3339 with milliseconds, UTC. */
  time: string;
  uid: string;
  user?: string;
  cluster_name?: string;
};

export interface AuditSearchQuery {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  /** Only these event types; absent or empty means all. */
  eventTypes?: string[];
  /** 1..5000 */
  limit: number;
  /** Only events whose JSON contains this text, ignoring (ASCII) case. */
  search?: string;
  /** Opaque key from a previous page's `startKey`. */
  startKey?: string;
  /** Default 'desc' (newest first). */
  order?: 'asc' | 'desc';
}

/**
 * Reading the log in the order it was stored (`readStored`), for an export that must not miss an
 * event written after it happened: a proxy's batch, or its spool drained after an outage.
 */
export interface AuditStoredQuery {
  /** Without a startKey: only events that happened at or after this (absent: all). */
  from?: Date;
  /** Only these event types; absent or empty means all. */
  eventTypes?: string[];
  /** 1..5000 */
  limit: number;
  /** From a previous read: the events stored after the last one it read. */
  startKey?: string;
}

export interface AuditSearchResult {
  events: AuditEvent[];
  /** Pass back to get the next page; '' when there is none. */
  startKey: string;
}

/**
 * Append-only: there is deliberately no way to change an event, and no route removes one. The
 * only removal is retention (`removeOlderThan`), run by the server itself on a timer.
 */
export interface AuditStore {
  /** Stores an event, assigning `uid`, `time` (now) and `cluster_name` when missing. */
  emit(event: AuditEventInput): Promise<AuditEvent>;
  /**
   * Stores several events in one write, in order (one transaction, the hash chain running through
   * them): what a burst of small events costs once instead of once each (audit-batcher.ts).
   */
  emitBatch(events: readonly AuditEventInput[]): Promise<AuditEvent[]>;
  /** Events with from <= time < to, by time then insertion order. */
  search(q: AuditSearchQuery): Promise<AuditSearchResult>;
  /**
   * Events in the order they were stored, after the startKey's. Writers take turns (the hash chain
   * needs them to), so an event is never stored ahead of one committed before it, and a reader
   * that has seen a position has seen everything stored before it. The answer's startKey is the
   * position after the last event read, even on the last page ('' only when nothing was ever
   * read), so the next read goes on from it once more events are stored.
   */
  readStored(q: AuditStoredQuery): Promise<AuditSearchResult>;
  /** Like search, for session end events only (they carry what the recordings list shows). */
  searchSessionEvents(q: Omit<AuditSearchQuery, 'eventTypes'>): Promise<AuditSearchResult>;
  /**
   * Retention: removes up to `batchSize` of the oldest events with time < `cutoff`, in one
   * transaction, and says how many went. Small batches keep writers from waiting on a lock.
   */
  removeOlderThan(cutoff: Date, batchSize: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * A store that takes again events whose first write may have happened: the spool's drain, after a
 * write whose answer was lost (the database went away between its commit and its reply).
 */
export interface ReplayableAuditStore extends AuditStore {
  /**
   * Stores the events in order, in one write, skipping each one already stored: the same `uid` at
   * the same `time`. So a replay never stores an event twice.
   */
  replay(events: readonly AuditEvent[]): Promise<void>;
}

/** Bad input to the audit store; the API turns `code` into a 400. */
export class AuditBadParameterError extends Error {
  readonly code = 'bad_parameter';
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidStartKeyError extends AuditBadParameterError {
  constructor() {
    super('invalid startKey: pass back the startKey of a previous search unchanged');
  }
}
