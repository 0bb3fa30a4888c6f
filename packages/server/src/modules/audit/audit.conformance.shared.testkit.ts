import type { AuditEvent, AuditEventInput, ReplayableAuditStore } from './audit.types.js';
import type { AuditChainSource } from './audit-chain.js';
import type { AuditStoreUnderTest } from './audit.conformance.testkit.js';

// The audit store conformance suite's fixtures, shared by its parts.

/**
 * The tests that seed thousands of events and search them against the scan: 5 to 20 s on two cores
 * busy with a whole run (PostgreSQL's trigram index most), past the default 20 s once in a while.
 */
export const seedingTestMs = 60_000;

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const base = Date.parse('2026-03-01T12:00:00.000Z');
export const at = (ms: number) => new Date(base + ms);
export const everything = { from: at(-1e9), to: at(1e9) };

/** The store under test, set afresh before each test by runAuditStoreConformance. */
export interface ConformanceContext {
  subject: AuditStoreUnderTest;
  store: ReplayableAuditStore & AuditChainSource;
  /** Emits with bounded parallelism: fast on PostgreSQL, still sequential-ish on SQLite. */
  emitAll(inputs: AuditEventInput[]): Promise<AuditEvent[]>;
}

/** Milliseconds from `base` of each event's time. */
export const times = (events: AuditEvent[]) => events.map((event) => Date.parse(event.time) - base);
