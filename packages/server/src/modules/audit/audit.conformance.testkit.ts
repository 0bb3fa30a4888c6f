import { afterEach, beforeEach, describe } from 'vitest';
import type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  ReplayableAuditStore,
} from './audit.types.js';
import type { AuditChainSource } from './audit-chain.js';
import { describeRetentionAndChain } from './audit.conformance.chain.testkit.js';
import { describeSearch } from './audit.conformance.search.testkit.js';
import { describeSessionEvents } from './audit.conformance.sessions.testkit.js';
import { describeStoredReads } from './audit.conformance.stored.testkit.js';
import type { ConformanceContext } from './audit.conformance.shared.testkit.js';
import { describeTextSearch } from './audit.conformance.text.testkit.js';

/** What the query planner does with one search. */
export interface SearchPlan {
  /** The raw plan, shown when an assertion fails. */
  text: string;
  /** Names of the indexes the plan reads. */
  indexes: string[];
  /** Whether rows are sorted after reading (instead of coming out of an index in order). */
  sorts: boolean;
}

export interface AuditStoreUnderTest {
  store: ReplayableAuditStore & AuditChainSource;
  /** Another store over the same storage: a second proxy. */
  openSecond(): Promise<ReplayableAuditStore & AuditChainSource>;
  /** Tampering by direct SQL: replaces text in the stored JSON of the event with this uid. */
  alterEvent(uid: string, text: string, replacement: string): Promise<void>;
  /** Tampering by direct SQL: deletes the row of the event with this uid. */
  deleteEvent(uid: string): Promise<void>;
  explainSearch(q: AuditSearchQuery): Promise<SearchPlan>;
  /** The same search by the plain scan alone: what text search did before it had an index. */
  searchByScan(q: AuditSearchQuery): Promise<AuditSearchResult>;
  /** The same search by the text index, as far as the store can be made to use it alone. */
  searchByIndex(q: AuditSearchQuery): Promise<AuditSearchResult>;
  /** Closes the store and removes its storage. */
  cleanup(): Promise<void>;
}

export type AuditStoreFactory = (clusterName: string) => Promise<AuditStoreUnderTest>;

/**
 * The behaviour both audit stores share; each store's test file calls this once. The parts
 * (search, text search, retention and chain, session events, stored reads) each live in a file
 * of their own.
 */
export function runAuditStoreConformance(name: string, factory: AuditStoreFactory): void {
  describe(`${name} audit store`, () => {
    const ctx = {
      async emitAll(inputs: AuditEventInput[]): Promise<AuditEvent[]> {
        const out: AuditEvent[] = [];
        for (let i = 0; i < inputs.length; i += 50)
          out.push(...(await Promise.all(inputs.slice(i, i + 50).map((e) => ctx.store.emit(e)))));
        return out;
      },
    } as ConformanceContext;

    beforeEach(async () => {
      ctx.subject = await factory('test-cluster');
      ctx.store = ctx.subject.store;
    });
    afterEach(() => ctx.subject.cleanup());

    describeSearch(ctx);
    describeTextSearch(ctx);
    describeRetentionAndChain(ctx);
    describeSessionEvents(ctx);
    describeStoredReads(ctx);
  });
}
